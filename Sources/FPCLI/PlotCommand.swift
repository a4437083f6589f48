import ArgumentParser
import FPAnalysis
import FPCore
import Foundation

struct Plot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw SVG charts: a transmitter's heatmap, a measurement's RSSI series, eval's error CDF and box plot.",
        discussion: """
            SVG goes to stdout or --output; open it in a browser. --sparkline prints a one-line terminal chart instead.

            Examples:
              fprint plot heatmap --map J3NP --transmitter C5:D5:21:51:D7:90 -o beacon14.svg
              fprint plot series 3f2a9c --radio ble -o series.svg
              fprint plot errors --map J3NP --set combined --k 1..3 -o errors.svg
              fprint plot series 3f2a9c --sparkline
            """,
        subcommands: [Heatmap.self, Series.self, Errors.self])

    struct Output: ParsableArguments {
        @Option(name: [.short, .long], help: "SVG file to write (default: stdout).", completion: .file()) var output: String?
        @Flag(help: "Print a terminal sparkline instead of SVG.") var sparkline = false

        func write(_ svg: String) throws {
            guard let output else { FileHandle.standardOutput.write(Data(svg.utf8)); return }
            do { try Data(svg.utf8).write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
                throw CommandFailure("\(output): cannot write the file: \(error.localizedDescription)", .ioError)
            }
            Terminal.err("wrote \(output)")
        }
    }

    struct Heatmap: ReportingCommand {
        static let configuration = CommandConfiguration(
        commandName: "heatmap",
            abstract: "One transmitter's median RSSI at every measured point of a map.",
            discussion: """
                The transmitter is a BLE address or Wi-Fi MAC (or eval's id, BLE:… / WIFI:…). Points where it was not heard are grey crosses. --underlay draws a floor-plan image (file path or URL) under the points; the app config has no image key yet, so none is drawn by default.

                Examples:
                  fprint plot heatmap --map J3NP --transmitter C5:D5:21:51:D7:90 -o beacon.svg
                  fprint plot heatmap --map J3NP --transmitter 7A:42:BD:F2:21:00 --sparkline
                """)
        @OptionGroup var filters: FilterOptions
        @Option(help: "BLE address, Wi-Fi MAC, or BLE:…/WIFI:… id.") var transmitter: String
        @Option(help: "Floor-plan image (path or URL) drawn under the points.") var underlay: String?
        @OptionGroup var out: Output
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws {
            if filters.map == nil { throw ValidationError("a heatmap is of one map: give --map") }
        }

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let fps = try AnalysisInput.fingerprints(try ws.openStore(.read), filters)
            guard !fps.isEmpty else { throw CommandFailure("no measurements match the filters", .notFound) }
            let ids: [String] = transmitter.hasPrefix("BLE:") || transmitter.hasPrefix("WIFI:") ? [transmitter]
                : [Fingerprint.bleID(transmitter), Fingerprint.wifiID(transmitter), Fingerprint.wifiID(transmitter.uppercased()),
                   Fingerprint.wifiID(transmitter.lowercased())]
            let points = fps.map { fp -> SVGPlot.HeatPoint in
                let medians = Reduction.reduce(fp, set: .combined, options: SignalOptions())
                return SVGPlot.HeatPoint(x: Double(fp.x), y: Double(fp.y), rssi: ids.lazy.compactMap { medians[$0] }.first,
                                         label: String(fp.id.prefix(8)))
            }
            guard points.contains(where: { $0.rssi != nil }) else {
                throw CommandFailure("transmitter \(transmitter) is not heard in any of the \(Terminal.counted(fps.count, "measurement"))", .notFound)
            }
            if out.sparkline {
                Terminal.out(SVGPlot.sparkline(points.map { $0.rssi ?? -105 }))
                return
            }
            let maxX = max(2250, (fps.map(\.x).max() ?? 0) + 50), maxY = max(100, (fps.map(\.y).max() ?? 0) + 50)
            try out.write(SVGPlot.heatmap(title: "\(transmitter) on \(filters.map ?? "")", points: points,
                                          mapWidth: Double(maxX), mapHeight: Double(maxY), underlay: underlay))
        }
    }

    struct Series: ReportingCommand {
        static let configuration = CommandConfiguration(
        commandName: "series",
            abstract: "RSSI over time in one measurement, one line per transmitter.",
            discussion: """
                Examples:
                  fprint plot series 3f2a9c -o series.svg
                  fprint plot series 3f2a9c --radio wifi --sparkline
                """)
        @Argument(help: "Document id or a unique prefix.") var id: String
        @Option(help: "ble or wifi (default both).") var radio: String?
        @Option(help: "At most this many transmitters, strongest median first.") var top = 10
        @OptionGroup var out: Output
        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            if let radio, radio != "ble" && radio != "wifi" { throw ValidationError("--radio must be ble or wifi") }
            if top < 1 { throw ValidationError("--top must be at least 1") }
        }

        func perform() async throws {
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
            if out.sparkline {
                let width = ranked.map(\.name.count).max() ?? 0
                for s in ranked {
                    let values = s.points.sorted { $0.time < $1.time }.map(\.rssi)
                    Terminal.out(s.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + SVGPlot.sparkline(values) + String(format: "  %.0f…%.0f dBm", values.min()!, values.max()!))
                }
                return
            }
            try out.write(SVGPlot.timeSeries(title: "RSSI of \(full)", series: Array(ranked)))
        }
    }

    struct Errors: ReportingCommand {
        static let configuration = CommandConfiguration(
        commandName: "errors",
            abstract: "Leave-one-out error CDF and box plot (as `fprint eval`).",
            discussion: """
                Examples:
                  fprint plot errors --map J3NP -o errors.svg
                  fprint plot errors --set ble,combined --estimator wknn --k 3 --sparkline
                """)
        @OptionGroup var filters: FilterOptions
        @Option(help: "Radio sets, comma-separated.") var set = "wifi,ble,combined"
        @Option(help: "Estimators, comma-separated.") var estimator = "wknn"
        @Option(help: "k: 2, 1..3 or 1,2,5.") var k = "3"
        @OptionGroup var out: Output
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws { _ = try Eval.cases(sets: set, estimators: estimator, k: k) }

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let fps = try AnalysisInput.fingerprints(try ws.openStore(.read), filters)
            guard fps.count >= 2 else { throw CommandFailure("plot errors needs at least 2 measurements, \(fps.count) match", .notFound) }
            let scales = try AnalysisInput.scales(ws, levels: Set(fps.map(\.level)))
            let cv = CrossValidation(fingerprints: fps) { scales[$0] ?? MapScale.jBuilding.metersPerUnit }
            let results = cv.run(try Eval.cases(sets: set, estimators: estimator, k: k)).map { r in
                (label: "\(r.evalCase.set.rawValue) \(r.evalCase.estimator.label) k=\(r.evalCase.k)",
                 sortedErrors: r.summary.sortedErrors)
            }
            if out.sparkline {
                let width = results.map(\.label.count).max() ?? 0
                for r in results {
                    Terminal.out(r.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + SVGPlot.sparkline(r.sortedErrors) + String(format: "  max %.2f m", r.sortedErrors.last ?? 0))
                }
                return
            }
            try out.write(SVGPlot.errors(title: "Leave-one-out errors (\(fps.count) measurements)", results: results))
        }
    }
}
