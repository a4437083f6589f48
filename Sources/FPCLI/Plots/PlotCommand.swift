import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPDatasets
import FPProbe
import Foundation

struct Plot: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw SVG or PNG charts: a transmitter's heatmap, a measurement's RSSI series, eval's error CDF and box plot, beacon coverage, a live track, a train/test evaluation across months.",
        discussion: """
            SVG goes to stdout, or -o FILE.svg / FILE.png (other endings are refused, exit 64); open an SVG in a browser. --sparkline prints a one-line terminal chart instead.

            Examples:
              fprint plot heatmap --map J3NP --transmitter C5:D5:21:51:D7:90 -o beacon14.svg
              fprint plot series 3f2a9c --radio ble -o series.svg
              fprint plot errors --map J3NP --set combined --k 1..3 -o errors.svg
              fprint plot series 3f2a9c --sparkline
              fprint plot track walk.jsonl -o track.svg
              fprint plot coverage --map J3NP -o coverage.png
              fprint plot groups months.json -o months.svg
              fprint plot heatmap --map J1NP --metric down -o down.svg
              fprint plot series --probes --metric rtt --since 7d -o rtt.png
            """,
        subcommands: [Heatmap.self, Series.self, Errors.self, CoveragePlot.self, TrackPlot.self, GroupsPlot.self])

    struct Output: ParsableArguments {
        @Option(name: [.short, .long], help: "File to write: FILE.svg (SVG) or FILE.png (PNG, drawn by librsvg's rsvg-convert); other names are refused; default: SVG on stdout.",
                completion: .file()) var output: String?
        @Flag(help: "Print a terminal sparkline instead of SVG.") var sparkline = false
        @Option(help: "A line written under the plot, e.g. the data's authors and licence (repeatable); plots of an imported dataset's measurements carry its credit on their own.")
        var credit: [String] = []

        /// The formats a plot file can have, by its name's ending.
        enum Format { case svg, png }

        /// The format `name` asks for; nil when fprint cannot write it (JPEG, PDF, no ending).
        static func format(of name: String) -> Format? {
            switch (name as NSString).pathExtension.lowercased() {
            case "svg": .svg
            case "png": .png
            default: nil
            }
        }

        /// Refused before any work: a name whose format fprint cannot write.
        func validate() throws {
            if let output, !sparkline, Self.format(of: output) == nil {
                throw ValidationError("\(output): fprint writes a plot as .svg or .png (by the name's ending)")
            }
        }

        /// Writes `svg` with `credits` (the datasets drawn) and --credit lines under it.
        func write(_ plot: String, credits: [String] = []) throws {
            let svg = SVGPlot.credited(plot, lines: credits + credit)
            guard let output else { FileHandle.standardOutput.write(Data(svg.utf8)); return }
            if Self.format(of: output) == .png {
                try PNGRenderer.render(svg, to: output)
                Terminal.err("wrote \(output)")
                return
            }
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
                With --metric down|up|rtt|loss|jitter: network probes' figures (networkProbes[] of any document on the map) instead of a transmitter, the median of the probes in each 2 m square (not interpolated), the colour bar in the figure's unit, yellow the better end (more Mbit/s, less ms or %).

                The transmitter is a BLE address or Wi-Fi MAC (or eval's id, BLE:… / WIFI:…), or a beacon's advertised identity (ibeacon:UUID:MAJOR:MINOR, eddystone:NAMESPACE:INSTANCE: its reports from every address); without --transmitter, the one heard at the most points. Points where it was not heard are grey crosses. The whole map is drawn (its extent in the app config), the surface opaque in the colour bar's colours, the map's floor-plan picture (maps[].floorPlan of the app config: a PNG or JPEG with its origin and scale) beneath it where nothing was interpolated, unless --no-floor-plan; --underlay stretches another image (file path or URL) over the plot instead. The map's registry beacons are marked, the one shown larger.

                Examples:
                  fprint plot heatmap --map J3NP -o strongest.svg
                  fprint plot heatmap --map J3NP --transmitter C5:D5:21:51:D7:90 -o beacon.svg
                  fprint plot heatmap --map J3NP --transmitter 7A:42:BD:F2:21:00 --sparkline
                  fprint plot heatmap --map J1NP --metric loss -o loss.png
                """)
        @OptionGroup var filters: FilterOptions
        @Option(help: "BLE address, Wi-Fi MAC, BLE:…/WIFI:… id, or a beacon's advertised identity (ibeacon:UUID:MAJOR:MINOR, eddystone:NAMESPACE:INSTANCE) (default: the one heard at the most points).") var transmitter: String?
        @Option(help: "A network probe figure instead of a transmitter: down, up (Mbit/s), rtt, jitter (ms) or loss (%).")
        var metric: ProbeMetric?
        @Option(help: "An image (path or URL) stretched under the points instead of the map's floor plan.") var underlay: String?
        @OptionGroup var floorPlan: FloorPlanOptions
        @OptionGroup var outline: OutlineOptions
        @OptionGroup var out: Output
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws {
            if filters.map == nil { throw ValidationError("a heatmap is of one map: give --map") }
            if metric != nil && transmitter != nil { throw ValidationError("--metric (network probes) and --transmitter exclude each other") }
        }

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            if let metric {
                try PlotProbes.heatmap(metric: metric, map: filters.map ?? "", filters: filters, floorPlan: floorPlan,
                                       underlay: underlay, out: out, ws: ws)
                return
            }
            var fps = try AnalysisInput.fingerprints(try ws.openStore(.read), filters)
            guard !fps.isEmpty else { throw CommandFailure("no measurements match the filters", .notFound) }
            // A beacon asked for by the identity it advertises is that beacon from whichever address.
            if transmitter.flatMap(Self.advertisedIdentity) != nil { fps = fps.map { $0.keyed(by: .identity) } }
            let medians = fps.map { Reduction.reduce($0, set: .combined, options: SignalOptions()) }
            let heardID = try Self.transmitterID(transmitter, medians: medians, measurements: fps.count)
            // "Not heard" only where its radio was scanned: a walk window without a
            // Wi-Fi scan says nothing about a Wi-Fi transmitter, and is left out.
            let wifi = heardID.hasPrefix("WIFI:")
            let points = zip(fps, medians).compactMap { fp, medians -> SVGPlot.HeatPoint? in
                guard !(wifi ? fp.wifi : fp.ble).isEmpty else { return nil }
                let at = fp.exactPoint
                return SVGPlot.HeatPoint(x: at.x, y: at.y, rssi: medians[heardID], label: String(fp.id.prefix(8)))
            }
            if out.sparkline {
                Terminal.out(SVGPlot.sparkline(points.map { $0.rssi ?? -105 }))
                return
            }
            let map = filters.map ?? ""
            let config = try ws.configIfAny()
            let plan = underlay == nil ? try floorPlan.plan(map: map, config: config) : nil
            // An imported dataset's map is in metres (its fingerprints say so), not the J building's units.
            let metersPerUnit = try AnalysisInput.scales(ws, of: fps)[map] ?? MapScale.jBuilding.metersPerUnit
            let registry = try BeaconRegistryFile.load(map: map, explicit: nil, config: config, paths: ws.paths)
            let beacons = HeatmapBeacons(registry: registry, transmitter: heardID,
                                         advertised: fps.lazy.compactMap { $0.bleIdentities[heardID] }.first)
            let reached = fps.map(\.exactPoint) + beacons.all.map { ($0.x, $0.y) }
            let corners = try outline.corners(map: map, config: config)
            let frame = MapPlotFrame(reached: reached, walls: corners, configured: config?.appConfig.map(id: map) != nil,
                                     metersPerUnit: metersPerUnit, floorPlan: plan,
                                     extent: config?.appConfig.map(id: map)?.extent.map { ($0.width, $0.height) })
            let window = frame.window
            // Repeated measurements at one place are one mark (within a centimetre).
            let places = SVGPlot.HeatPoint.mergedByPlace(points, precision: 0.01 / metersPerUnit).map(window.shift)
            var title = beacons.title(transmitter: heardID, map: map, points: points)
            if places.count < points.count { title += " (\(places.count) places)" }
            try out.write(SVGPlot.heatmap(title: title, points: places,
                                          mapWidth: frame.width, mapHeight: frame.height, metersPerUnit: metersPerUnit,
                                          underlay: underlay, outline: frame.walls, floorPlan: plan, shown: beacons.shown.map(window.shift),
                                          beacons: beacons.others.map(window.shift), axisOrigin: window.axisOrigin),
                          credits: fps.datasetCredits)
        }

        /// `ibeacon:…` or `eddystone:…` (also as `BLE:ibeacon:…`): a beacon by its advertised identity; nil for an address.
        static func advertisedIdentity(_ asked: String) -> BeaconIdentity? {
            let text = asked.hasPrefix("BLE:") ? String(asked.dropFirst(4)) : asked
            guard let id = BeaconIdentity(text: text) else { return nil }
            if case .mac = id { return nil }
            return id
        }

        /// The transmitter's id as the medians name it: the one asked for, or
        /// the one heard at the most points (ties: the strongest median over
        /// them, then the id), so the default is one worth looking at.
        static func transmitterID(_ asked: String?, medians: [[String: Double]], measurements: Int) throws -> String {
            guard let asked else {
                var heard: [String: [Double]] = [:]
                for m in medians { for (id, v) in m { heard[id, default: []].append(v) } }
                let best = heard.max { a, b in
                    if a.value.count != b.value.count { return a.value.count < b.value.count }
                    let ma = Reduction.median(a.value)!, mb = Reduction.median(b.value)!
                    return ma != mb ? ma < mb : a.key > b.key
                }
                guard let best else { throw CommandFailure("no transmitter is heard in any of the \(Terminal.counted(measurements, "measurement"))", .notFound) }
                return best.key
            }
            let ids: [String] = advertisedIdentity(asked).map { [Fingerprint.bleID($0)] }
                ?? (asked.hasPrefix("BLE:") || asked.hasPrefix("WIFI:") ? [asked]
                    : [Fingerprint.bleID(asked), Fingerprint.wifiID(asked), Fingerprint.wifiID(asked.uppercased()),
                       Fingerprint.wifiID(asked.lowercased())])
            guard let id = ids.first(where: { id in medians.contains { $0[id] != nil } }) else {
                throw CommandFailure("transmitter \(asked) is not heard in any of the \(Terminal.counted(measurements, "measurement"))", .notFound)
            }
            return id
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
            let scales = try AnalysisInput.scales(ws, of: fps)
            let cv = CrossValidation(fingerprints: fps) { scales[$0] ?? MapScale.jBuilding.metersPerUnit }
            let results = cv.run(try Eval.cases(sets: set, estimators: estimator, k: k)).map { r in
                (label: "\(r.evalCase.set.rawValue) \(r.evalCase.estimator.label) k=\(r.evalCase.k)",
                 sortedErrors: r.summary.sortedErrors, total: r.summary.count + r.summary.unlocalised)
            }
            if out.sparkline {
                let width = results.map(\.label.count).max() ?? 0
                for r in results {
                    Terminal.out(r.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + SVGPlot.sparkline(r.sortedErrors) + String(format: "  max %.2f m, %d of %d located", r.sortedErrors.last ?? 0,
                                                                       r.sortedErrors.count, r.total))
                }
                return
            }
            let maps = Set(fps.map(\.level)).sorted().joined(separator: ", ")
            let sets = set.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
            try out.write(SVGPlot.errors(title: "Leave-one-out errors on \(maps), \(sets) (\(fps.count) measurements)", results: results),
                          credits: fps.datasetCredits)
        }
    }

    struct TrackPlot: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "track",
            abstract: "A track of `fprint track --json`: the true path, the estimates and the error over time, a map panel per floor.",
            discussion: """
                Reads the JSON lines `fprint track --json` prints (a file, or - for standard input); with --truth they carry the true path and the errors.

                Examples:
                  fprint track --simulate --scenario scenarioJ3NP1 --fast --truth --json > walk.jsonl
                  fprint plot track walk.jsonl -o track.svg
                  fprint plot track walk.jsonl --sparkline
                  fprint plot track flat.jsonl --outline ble-flat-robot/layout.csv --circles 6 -o flat.png
                  fprint track --simulate --scenario scenarioJ3NP1 --off-route 3 --fast --truth --json > off.jsonl
                  fprint plot track off.jsonl --scenario scenarioJ3NP1 -o off.svg

                The floor's outline is the map's (app config) or --outline, a CSV of x,y corners in map units (the header's x and y columns, as ble-flat-robot's layout.csv). --scenario draws that scenario's route on each floor the track reaches (dashed green): where the radio map was surveyed, so a walk off it (track --off-route) shows how far it strayed.
                """)
        @Argument(help: "JSON lines of `fprint track --json` (- for standard input).", completion: .file()) var input: String
        @Option(help: "The floor's outline: a CSV file with x and y columns, corners in order (map units).", completion: .file())
        var outline: String?
        @Option(help: "Draw the stated accuracy (accuracy_m) of this many positions, spread over the track, as circles.")
        var circles = 5
        @Option(help: "Draw this scenario's route, the surveyed path, on the floors the track reaches.")
        var scenario: String?
        @Flag(name: .customLong("method-fixes"), help: "Also draw each method's own fixes (wknn, beacons) before the filter, a line each.")
        var methodFixes = false
        @OptionGroup var out: Output
        @OptionGroup var floorPlan: FloorPlanOptions
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let data: Data?
            if input == "-" { data = FileHandle.standardInput.readDataToEndOfFile() } else { data = FileManager.default.contents(atPath: input) }
            guard let data else { throw CommandFailure("\(input): cannot read the file", .ioError) }
            var samples: [SVGPlot.TrackSample] = []
            var methods: [String] = [], radios: Set<String> = []
            var metersPerUnit: Double?
            for (n, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
                guard let value = try? CanonicalJSON.parse(Data(line.utf8)), case .object(let o) = value else {
                    throw CommandFailure("\(input): line \(n + 1) is not a JSON object", .dataError)
                }
                if o["summary"] != nil { continue }
                guard let x = o["x"]?.doubleValue, let y = o["y"]?.doubleValue, let t = o["t_ms"]?.doubleValue else {
                    throw CommandFailure("\(input): line \(n + 1) is no position of `fprint track --json` (x, y, t_ms)", .dataError)
                }
                let truth = o["truth"].flatMap { tr -> (x: Double, y: Double)? in
                    guard let tx = tr["x"]?.doubleValue, let ty = tr["y"]?.doubleValue else { return nil }
                    return (tx, ty)
                }
                // A method's own fix is in metres: back to map units by this line's own x / x_m.
                var own: [(name: String, x: Double, y: Double)] = []
                if methodFixes, case .object(let fixes)? = o["fixes"], let xm = o["x_m"]?.doubleValue, xm != 0 {
                    for name in fixes.keys.sorted() {
                        guard let fx = fixes[name]?["x_m"]?.doubleValue, let fy = fixes[name]?["y_m"]?.doubleValue else { continue }
                        own.append((name, fx * x / xm, fy * x / xm))
                    }
                }
                samples.append(.init(timeS: t / 1000, x: x, y: y, truth: truth, errorM: o["error_m"]?.doubleValue,
                                     accuracyM: o["accuracy_m"]?.doubleValue, map: o["map"]?.stringValue,
                                     truthMap: o["truth"]?["map"]?.stringValue, methods: own))
                if let m = o["method"]?.stringValue, !methods.contains(m) { methods.append(m) }
                if case .array(let heard)? = o["radios"] { radios.formUnion(heard.compactMap(\.stringValue)) }
                if metersPerUnit == nil, let xm = o["x_m"]?.doubleValue, x != 0 { metersPerUnit = xm / x }
            }
            guard !samples.isEmpty else { throw CommandFailure("\(input): no positions", .dataError) }
            if out.sparkline {
                let errors = samples.compactMap(\.errorM)
                let values = errors.isEmpty ? samples.compactMap(\.accuracyM) : errors
                Terminal.out(SVGPlot.sparkline(values) + String(format: "  %@ %.2f…%.2f m", errors.isEmpty ? "accuracy" : "error",
                                                                  values.min() ?? 0, values.max() ?? 0))
                return
            }
            let config = try? Workspace(configOptions: configOptions).configIfAny()
            // The route's legs by map: where the radio map was surveyed.
            var surveyed: [String: [[(x: Double, y: Double)]]] = [:]
            if let scenario {
                let ws = Workspace(configOptions: configOptions)
                for leg in try ws.scenario(scenario, in: try ws.loadConfig()).legs {
                    surveyed[leg.mapID, default: []].append(leg.route.waypoints.map { (x: $0.x, y: $0.y) })
                }
            }
            let walls = try outline.map(OutlineFile.read)
            // The floors in the order the track (estimated or true) reaches them.
            var maps: [String?] = []
            for s in samples { for m in [s.map, s.truthMap] where (m != nil || s.map == nil) && !maps.contains(m) { maps.append(m) } }
            let floors = try maps.map { map in
                Self.floor(map, samples: samples, config: config, plan: try floorPlan.plan(map: map ?? "", config: config),
                               outline: walls, surveyed: surveyed[map ?? ""] ?? [])
            }
            let set = ["ble", "wifi"].filter(radios.contains).map { $0 == "ble" ? "BLE" : "Wi-Fi" }.joined(separator: " + ")
            let how = (methods + (set.isEmpty ? [] : [set])).joined(separator: ", ")
            let title = "Track on \(maps.map { $0 ?? "?" }.joined(separator: " → "))\(how.isEmpty ? "" : ": \(how)") (\(samples.count) positions)"
            // The map's own scale when the config has it: x_m / x is rounded (0.01999 m, so a 50 m map's last tick is lost).
            let scale = maps.compactMap { $0 }.first.flatMap { config?.appConfig.map(id: $0)?.scale.metersPerUnit }
            try out.write(SVGPlot.track(title: title, samples: samples, floors: floors, circles: circles,
                                        metersPerUnit: scale ?? metersPerUnit ?? 1))
        }

        /// A floor's panel: the app config's extent of the map when it has one,
        /// else what the track and walls on it reach (and its plan).
        static func floor(_ map: String?, samples: [SVGPlot.TrackSample], config: LoadedConfig?, plan: SVGPlot.FloorPlan?,
                          outline: [(x: Double, y: Double)]?, surveyed: [[(x: Double, y: Double)]] = []) -> SVGPlot.TrackFloor {
            let mapConfig = config?.appConfig.map(id: map ?? "")
            let walls = outline ?? mapConfig?.outline?.map { (x: $0.x, y: $0.y) }
            let here = samples.filter { $0.map == map }, truths = samples.filter { ($0.truthMap ?? $0.map) == map }.compactMap(\.truth)
            let xs = here.map(\.x) + truths.map(\.x) + (walls ?? []).map(\.x) + surveyed.joined().map(\.x)
            let ys = here.map(\.y) + truths.map(\.y) + (walls ?? []).map(\.y) + surveyed.joined().map(\.y)
            return SVGPlot.TrackFloor(
                map: map ?? "?",
                width: mapConfig?.extent?.width ?? max((xs.max() ?? 1) * 1.05, plan.map { $0.x + $0.width } ?? 0),
                height: mapConfig?.extent?.height ?? max((ys.max() ?? 1) * 1.05, plan.map { $0.y + $0.height } ?? 0),
                floorPlan: plan, outline: walls, surveyed: surveyed)
        }
    }
}
