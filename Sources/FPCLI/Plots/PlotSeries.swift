import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPDatasets
import FPProbe
import Foundation

extension Plot {
    struct Series: ReportingCommand {
        static let configuration = CommandConfiguration(
        commandName: "series",
            abstract: "RSSI over time in one measurement, one line per transmitter; with --probes, a network probe figure over time.",
            discussion: """
                With --probes: one point per network probe (networkProbes[] of every stored document, or those --map and --since select) at the time it started, on a UTC time axis, the figure (--metric down|up|rtt|loss|jitter) in its unit.

                Examples:
                  fprint plot series 3f2a9c -o series.svg
                  fprint plot series 3f2a9c --radio wifi --sparkline
                  fprint plot series --probes --metric down --map J1NP --since 2d -o down.svg
                """)
        @Argument(help: "Document id or a unique prefix (not with --probes).") var id: String?
        @Option(help: "ble or wifi (default both).") var radio: String?
        @Option(help: "At most this many transmitters, strongest median first.") var top = 10
        @Flag(help: "Network probes' figures over time instead of one measurement's RSSI.") var probes = false
        @Option(help: "With --probes: down, up (Mbit/s), rtt, jitter (ms) or loss (%).") var metric: ProbeMetric?
        @OptionGroup var filters: FilterOptions
        @OptionGroup var out: Output
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            if let radio, radio != "ble" && radio != "wifi" { throw ValidationError("--radio must be ble or wifi") }
            if top < 1 { throw ValidationError("--top must be at least 1") }
            if probes {
                // Naming what was taken for an id: an option series does not have (--config F) leaves its value here.
                if let id {
                    throw ValidationError("--probes plots every stored probe: '\(id)' was taken for a document id "
                        + "(--map, --since select; `fprint plot series --help` lists the options)")
                }
                if metric == nil { throw ValidationError("--probes needs --metric down, up, rtt, loss or jitter") }
            } else {
                if metric != nil { throw ValidationError("--metric needs --probes") }
                if filters.map != nil || filters.since != nil || filters.mode != nil || filters.session != nil {
                    throw ValidationError("--map, --since, --mode and --session select probes: they need --probes")
                }
                if id == nil { throw ValidationError("give a document id (or --probes for network probes)") }
            }
        }

        func perform() async throws {
            if probes, let metric {
                try PlotProbes.series(metric: metric, filters: filters, out: out, ws: Workspace(storeOptions: storeOptions))
                return
            }
            guard let id else { return }
            let store = try Workspace(storeOptions: storeOptions).openStore(.read)
            let fp = try AnalysisInput.fingerprint(store, idPrefix: id)
            let full = fp.id
            let samples = (radio == "wifi" ? [] : fp.ble) + (radio == "ble" ? [] : fp.wifi)
            var byID: [String: [(time: Int, rssi: Double)]] = [:]
            for s in samples { byID[s.transmitter, default: []].append((s.time, s.rssi)) }
            guard !byID.isEmpty else { throw CommandFailure("measurement \(full) has no \(radio ?? "BLE or Wi-Fi") samples", .notFound) }
            let ranked = byID.map { (name: $0.key, points: $0.value) }.sorted { a, b in
                let ma = Reduction.median(a.points.map(\.rssi))!, mb = Reduction.median(b.points.map(\.rssi))!
                return ma != mb ? ma > mb : a.name < b.name
            }.prefix(top)
            if !out.sparkline, Set(samples.map(\.time)).count == 1 {
                // One instant (an imported dataset's row): its readings as bars, not an empty time axis.
                let shown = byID.count > ranked.count ? "the strongest \(ranked.count) of \(byID.count) transmitters" : "\(ranked.count) transmitters"
                try out.write(SVGPlot.fingerprintBars(
                    title: "RSSI of \(full): one reading each, \(shown)",
                    readings: ranked.map { ($0.name, Reduction.median($0.points.map(\.rssi))!) },
                    note: "A fingerprint taken at one instant (no time within it): each transmitter's reading, strongest first."),
                    credits: [fp].datasetCredits)
                return
            }
            if out.sparkline {
                let width = ranked.map(\.name.count).max() ?? 0
                for s in ranked {
                    let values = s.points.sorted { $0.time < $1.time }.map(\.rssi)
                    Terminal.out(s.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + SVGPlot.sparkline(values) + String(format: "  %.0f…%.0f dBm", values.min()!, values.max()!))
                }
                return
            }
            try out.write(SVGPlot.timeSeries(title: "RSSI of \(full)", series: Array(ranked)), credits: [fp].datasetCredits)
        }
    }
}
