import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

struct Locate: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Estimate where a measurement was taken: WKNN against the stored radiomap, and from BLE beacons alone.",
        discussion: """
            The radiomap is every stored document of the measurement's map except the measurement itself (with --session: except the whole walk). WKNN as in `fprint eval` (median RSSI per transmitter, zero signal −105 dBm, weights 1/d).

            Beacon positioning uses the registry Config/beacons/<map>.json (the fim-beacons.json shape: an array of {mac, uuid, major, minor, x, y, floor, …}, null entries skipped, optional measuredPower per beacon; an entry may give an iBeacon uuid/major/minor or an Eddystone namespace/instance instead of a mac). A report is matched to its beacon by the identity it advertises first, then its address, and every report of a beacon counts, whichever address it came from: median RSSI → distance with the log-distance model (exponent --path-loss-exponent, default 2; measured power per beacon, else --measured-power), the mean of the closed-form solutions of every 3-beacon subset of the 6 strongest, then damped Gauss–Newton refinement. At least 3 registry beacons must be heard.

            --session locates every document of a walk in seq order and smooths the track per axis with a Kalman filter (variances in m²). Live positioning: `fprint track`.

            Examples:
              fprint locate 3f2a9c
              fprint locate --file new-measurement.json --k 3 --json
              fprint locate --session 5d1c… --track-source beacons
              fprint locate 3f2a9c --min-rssi=-85

            --min-rssi leaves out BLE readings weaker than it, in the measurement and the radiomap alike (Wi-Fi is kept); --ble-key identity keys WKNN's BLE transmitters by the identity their address advertised.
            """)

    @Argument(help: "Stored measurement id or unique prefix.") var id: String?
    @Option(help: "A measurement document JSON file instead of a stored one.", completion: .file()) var file: String?
    @Option(help: "Locate every document of this walk session, in seq order, and smooth the track.") var session: String?
    @Option(help: "Radio set for WKNN: wifi, ble or combined.") var set: RadioSet = .combined
    @Option(help: "Neighbours for WKNN.") var k = 3
    @Option(help: "Beacon registry file (default: beacons/<map>.json in your config folder or beside the app config).", completion: .file())
    var beacons: String?
    @Option(name: .customLong("path-loss-exponent"), help: "Log-distance path-loss exponent n.") var pathLossExponent = 2.0
    @Option(name: .customLong("measured-power"), parsing: .unconditional,
            help: "dBm at 1 m for beacons whose registry entry has none.")
    var measuredPower = -66.0
    @Option(name: .customLong("track-source"), help: "With --session: smooth the wknn or the beacons positions.")
    var trackSource: TrackSource = .wknn
    @Option(name: .customLong("process-variance"), help: "Kalman process noise per step (m²).") var processVariance = 1.0
    @Option(name: .customLong("measurement-variance"), help: "Kalman measurement noise (m²).") var measurementVariance = 4.0
    @OptionGroup var bleReadings: BLEReadingOptions
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    enum TrackSource: String, ExpressibleByArgument, CaseIterable { case wknn, beacons }

    func validate() throws {
        let sources = [id != nil, file != nil, session != nil].filter { $0 }.count
        if sources != 1 { throw ValidationError("name exactly one of: a measurement id, --file PATH, --session ID") }
        if !(1...50).contains(k) { throw ValidationError("--k must be 1–50, got \(k)") }
        if !(pathLossExponent > 0 && pathLossExponent.isFinite) { throw ValidationError("--path-loss-exponent must be positive") }
        if !(processVariance > 0 && measurementVariance > 0) {
            throw ValidationError("--process-variance and --measurement-variance must be positive")
        }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        // The query documents, with their true position when known.
        var queries: [(fp: Fingerprint, truth: Bool, seq: Int?)] = []
        var exclude = Set<String>()
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandFailure("\(file): cannot read the file", .ioError)
            }
            guard case .object(var body) = (try? CanonicalJSON.parse(data)) ?? .null else {
                throw CommandFailure("\(file): not a JSON measurement document", .dataError)
            }
            let truth = body["x"] != nil && body["y"] != nil
            if !truth { body["x"] = 0; body["y"] = 0 }
            let docID = body["_id"]?.stringValue ?? file
            do { queries.append((try Fingerprint(id: docID, body: .object(body)), truth, nil)) } catch {
                throw CommandFailure("\(file): \(error)", .dataError)
            }
            exclude.insert(docID)
        } else if let id {
            let fp = try AnalysisInput.fingerprint(store, idPrefix: id)
            queries.append((fp, true, nil))
            exclude.insert(fp.id)
        } else if let session {
            let texts = try AnalysisInput.texts(store, ListQuery(sessionId: session))
            guard !texts.isEmpty else { throw CommandFailure("no documents of walk session \(session)", .notFound) }
            let seqs = texts.map { (try? CanonicalJSON.parse($0.body))?["seq"]?.intValue.map(Int.init) }
            let fps = try AnalysisInput.fingerprints(texts)
            queries = zip(fps, seqs).map { ($0, true, $1) }.sorted { ($0.2 ?? 0) < ($1.2 ?? 0) }
            exclude = Set(texts.map(\.id))
        }
        queries = queries.map { (bleReadings.apply($0.fp), $0.truth, $0.seq) }
        let level = queries[0].fp.level
        let loaded = try ws.configIfAny()
        let metersPerUnit = try AnalysisInput.scales(ws, levels: [level])[level] ?? MapScale.jBuilding.metersPerUnit
        // The radiomap: the map's other documents, in file order.
        let mapFPs = bleReadings.apply(try AnalysisInput.fingerprints(
            AnalysisInput.texts(store, ListQuery(level: level.isEmpty ? nil : level)).filter { !exclude.contains($0.id) }))
        let space = SignalSpace(mapFPs, set: set, options: SignalOptions())
        let locator = try beaconLocator(ws: ws, loaded: loaded, level: level, metersPerUnit: metersPerUnit)

        var reports: [LocateReport] = []
        for q in queries {
            var r = LocateReport(fingerprint: q.fp, truth: q.truth, seq: q.seq, metersPerUnit: metersPerUnit)
            let reduced = Reduction.reduce(q.fp, set: set, options: SignalOptions())
            let neighbours = space.neighbours(of: reduced, k: k)
            r.wknn = Estimator.wknn.estimate(neighbours[...], k: k) { (mapFPs[$0].x, mapFPs[$0].y, mapFPs[$0].level) }
            r.neighbours = neighbours.map { (mapFPs[$0.index].id, $0.distance) }
            r.beacons = locator?.locate(q.fp)
            reports.append(r)
        }
        if session != nil {
            // Per-axis Kalman smoothing in metres over the chosen positions (gaps carry the last estimate).
            let filter = Kalman1D(processVariance: processVariance, measurementVariance: measurementVariance)
            var points: [(x: Double, y: Double)] = []
            var last: (x: Double, y: Double)?
            for r in reports {
                let p = trackSource == .wknn ? r.wknn.map { ($0.x, $0.y) } : r.beacons.map { ($0.x, $0.y) }
                if let p { last = p }
                points.append(last ?? (Double(r.fingerprint.x), Double(r.fingerprint.y)))
            }
            let m = metersPerUnit
            let smoothed = TrackSmoother(filter: filter).smooth(points.map { ($0.x * m, $0.y * m) })
            for i in reports.indices { reports[i].smoothed = (smoothed[i].x / m, smoothed[i].y / m) }
        }
        if json {
            for r in reports { Terminal.out(CanonicalJSON.string(r.json)) }
        } else {
            Terminal.err("radiomap: \(Terminal.counted(mapFPs.count, "document")) of map \(level.isEmpty ? "(none)" : level), \(set.rawValue), WKNN k=\(k)"
                + (locator.map { "; beacons: \($0.registry.entries.count) in the registry" } ?? "; no beacon registry for \(level)"))
            for r in reports { for line in r.lines { Terminal.out(line) } }
        }
    }

    /// The registry for the map: --beacons, else beacons/<map>.json in your config folder or beside the app config; nil when none exists.
    func beaconLocator(ws: Workspace, loaded: LoadedConfig?, level: String, metersPerUnit: Double) throws -> BeaconLocator? {
        try BeaconRegistryFile(path: beacons, pathLossExponent: pathLossExponent, measuredPower: measuredPower)
            .locator(ws: ws, loaded: loaded, level: level, metersPerUnit: metersPerUnit)
    }
}

extension RadioSet: ExpressibleByArgument {}
