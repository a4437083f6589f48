import ArgumentParser
import FPAnalysis
import FPBLE
import FPConfig
import FPCore
import FPDatasets
import FPProviders
import FPSession
import FPStore
import Foundation

struct Track: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Live positioning: where you are now, on which floor, and how sure it is.",
        discussion: """
            Runs the radios continuously (real ones, --simulate --scenario S, a --ble-source btsnoop:FILE replay, or a stored walk with --session ID) and every --interval prints one position from the signals of the last --window: JSON lines {time, map, floor, x, y, x_m, y_m, accuracy_m, method, transmitters_used, …} when piped or with --json, a live line on a terminal. Ctrl-C ends it with a summary.

            Methods: wknn (the map's stored radiomap, as eval), beacons (trilateration from the registry beacons/<map>.json, as locate), fused (both, each weighed by its own variance in one Kalman update; the default). Positions are filtered by a 2-D constant-velocity Kalman filter whose process noise follows the walking pace (speed-correction setting); accuracy_m comes from its covariance, widened when a belief over the survey's places finds another place the signals fit as well.

            --auto-map chooses among the app config's maps the one whose transmitters are heard strongest, and reports a change only after it held for --hold windows and was at least 75 % sure over them, with a confidence (map_confidence). Where the app config's scenarios walk between floors, their stairs and lifts are known, and a change waits until the position is within 8 m (plus its accuracy) of one of its floor's.

            A report is matched to its registry beacon by the identity it advertises (iBeacon uuid/major/minor, Eddystone namespace/instance) first, then its address, so a beacon whose address rotates is one beacon. --min-rssi leaves out BLE readings weaker than it, live and in the radiomap (Wi-Fi is kept); --ble-key identity keys WKNN's BLE transmitters by the identity their address advertised.

            --truth (with --simulate or --session) adds each fix's error against the true position and a summary: median, p90, max error, floor-hit rate, time to the first fix.

            --publish sends each position to the gateway (sync's --gateway and credentials) for the dashboard's live view, where the map page shows a marker and a trail per user and --device. The gateway keeps the last positions in memory only: they are not stored or replicated. A gateway that does not answer is said once; tracking goes on.

            Examples:
              fprint track --map J3NP
              fprint track --simulate --scenario scenarioJ3NP1 --fast --truth
              fprint track --auto-map --simulate --scenario scenarioJ2J3 --fast --truth --json
              fprint track --map J3NP --method beacons --ble-source btsnoop:walk.btsnoop --fast
              fprint track --session 5d1c… --truth
              fprint track --map J3NP --publish --device tablet-2
            """)

    @Option(help: "The map (floor) to position on (default: the scenario's or the session's first map).") var map: String?
    @Flag(name: .customLong("auto-map"), help: "Detect the map (floor) among the app config's maps from the signals.")
    var autoMap = false
    @Option(help: "wknn (radiomap), beacons (registry trilateration) or fused (both).") var method: TrackMethod = .fused
    @Option(help: ArgumentHelp("How often a position is printed (e.g. 1s, 500ms).", valueName: "duration")) var interval = "1s"
    @Option(help: ArgumentHelp("Signals of how long go into each position (e.g. 2s).", valueName: "duration")) var window = "2s"
    @Option(help: "With --simulate: the scenario to walk (its `then` legs cross maps).") var scenario: String?
    @Option(help: "Replay this stored walk session's documents as a live stream (as fast as possible).") var session: String?
    @Option(help: "Replay a fingerprint table's rows as a live stream (as fast as possible), read as `fprint import` reads tables (--time-column needed; --x-column/--y-column are the truth).",
            completion: .file())
    var table: String?
    @OptionGroup(title: "Table columns (with --table)") var columns: TableColumnOptions
    @Option(help: ArgumentHelp("The radiomap is the map's fingerprints this selection picks, as eval's --train (e.g. set=train).",
                               valueName: "key=value,…"))
    var train: String?
    @Flag(help: "Print each fix's error against the true position and a summary (--simulate, --session or --table).") var truth = false
    @Option(name: .customLong("off-route"), help: "With --simulate: walk this many metres inside the scenario's route (towards its middle), off the surveyed path.")
    var offRoute = 0.0
    @Option(help: "Stop after this many seconds (default: the end of the scenario, replay or session; live: Ctrl-C).")
    var duration: Double?
    @Option(help: "Neighbours for WKNN.") var k = 3
    @Option(help: "With --map: beacon registry file (default: beacons/<map>.json in your config folder or beside the app config).", completion: .file())
    var beacons: String?
    @Option(name: .customLong("path-loss-exponent"), help: "Log-distance path-loss exponent n.") var pathLossExponent = 2.0
    @Option(name: .customLong("measured-power"), parsing: .unconditional, help: "dBm at 1 m for beacons without one.")
    var measuredPower = -66.0
    @Option(name: .customLong("wknn-sigma"), help: "Least error (m) a WKNN fix is trusted to, beside its neighbours' spread.")
    var wknnSigma = 1.0
    @Option(name: .customLong("beacons-sigma"), help: "Least error (m) a beacon fix is trusted to, beside its range residuals.")
    var beaconsSigma = 3.0
    @Option(help: "With --auto-map: windows a new map must hold before it is reported.") var hold = 3
    @OptionGroup var bleReadings: BLEReadingOptions
    @Flag(help: "JSON lines even on a terminal.") var json = false
    @OptionGroup var publishing: PublishOptions
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if map != nil && autoMap { throw ValidationError("give --map M or --auto-map, not both") }
        guard let i = Self.milliseconds(interval), i >= 100 else {
            throw ValidationError("--interval must be a duration of at least 100ms, e.g. 1s or 500ms, got '\(interval)'")
        }
        guard let w = Self.milliseconds(window), w >= 100 else {
            throw ValidationError("--window must be a duration of at least 100ms, e.g. 2s, got '\(window)'")
        }
        _ = (i, w)
        if scenario != nil && !capture.simulate { throw ValidationError("--scenario is walked by the simulation: add --simulate") }
        if offRoute != 0 && !capture.simulate { throw ValidationError("--off-route moves the simulated walker: add --simulate") }
        if !(offRoute >= 0 && offRoute.isFinite) { throw ValidationError("--off-route must be 0 or more metres") }
        if capture.simulate && scenario == nil { throw ValidationError("--simulate walks a scenario: give --scenario S") }
        if session != nil && (capture.simulate || capture.bleSource != nil) {
            throw ValidationError("--session replays a stored walk: no --simulate or --ble-source with it")
        }
        if table != nil {
            if capture.simulate || capture.bleSource != nil || session != nil {
                throw ValidationError("--table replays a table: no --simulate, --ble-source or --session with it")
            }
            if map == nil { throw ValidationError("--table needs the map whose radiomap it is tracked on: give --map") }
            if columns.time == nil { throw ValidationError("--table needs --time-column (the rows are replayed at their times)") }
            if columns.transmitterPrefix.isEmpty { throw ValidationError("--table needs --transmitter-prefix (e.g. rssi_)") }
            if truth && (columns.x == nil || columns.y == nil) {
                throw ValidationError("--truth with --table takes the true path from --x-column and --y-column")
            }
        } else if let option = columns.given.first {
            throw ValidationError("\(option) describes a --table's columns: give --table FILE")
        }
        if truth && !capture.simulate && session == nil && table == nil {
            throw ValidationError("--truth needs a known true path: --simulate --scenario S, --session ID or --table FILE")
        }
        if let train { _ = try HoldoutOptions.selection(train, "--train") }
        if capture.keepRaw { throw ValidationError("--keep-raw keeps evidence with stored documents; track stores none") }
        if beacons != nil && map == nil { throw ValidationError("--beacons is the registry of one map: give --map") }
        if !(1...50).contains(k) { throw ValidationError("--k must be 1–50, got \(k)") }
        if !(1...20).contains(hold) { throw ValidationError("--hold must be 1–20 windows, got \(hold)") }
        if !(wknnSigma > 0 && beaconsSigma > 0) { throw ValidationError("--wknn-sigma and --beacons-sigma must be positive") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if !(pathLossExponent > 0 && pathLossExponent.isFinite) { throw ValidationError("--path-loss-exponent must be positive") }
        if map == nil && !autoMap && scenario == nil && session == nil && table == nil {
            throw ValidationError("say where to position: --map M or --auto-map")
        }
    }

    /// "1s", "1.5s", "500ms", "2m" → ms; nil for anything else.
    static func milliseconds(_ text: String) -> Int? {
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let n = Double(text.dropLast(suffix.count)), n > 0, n.isFinite else { return nil }
            return Int((n * scale).rounded())
        }
        return nil
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let loaded = try ws.configIfAny()
        let settings = try ws.settings()
        let pace = WalkPace(correction: settings.speedCorrection)
        let intervalMs = Self.milliseconds(interval)!, windowMs = Self.milliseconds(window)!

        // What is replayed or simulated decides the default map.
        var sessionDocs: [SessionFeed.Document] = []
        var sessionIDs = Set<String>()
        var scenarioValue: Scenario?
        if let session {
            let store = try ws.openStore(.read)
            (sessionDocs, sessionIDs) = try Self.sessionDocuments(store, session: session)
        }
        if let scenario {
            guard let loaded else { throw CommandFailure("--scenario needs an app config with scenarios", .notFound) }
            scenarioValue = try ws.scenario(scenario, in: loaded)
        }
        let fixedMap: String? = autoMap ? nil : (map ?? scenarioValue?.mapID ?? sessionDocs.first?.map)
        let mapIDs: [String]
        if let fixedMap {
            mapIDs = [fixedMap]
        } else {
            guard let loaded, !loaded.appConfig.maps.isEmpty else {
                throw CommandFailure("--auto-map chooses among the app config's maps, and none was found", .notFound)
            }
            mapIDs = loaded.appConfig.maps.map(\.id)
        }
        // The table is read (and any bad cell named) before the radiomap.
        let tableFeed = try table.map { try Self.tableFeed($0, columns: columns, map: fixedMap ?? "") }
        let models = try mapModels(ws: ws, loaded: loaded, maps: mapIDs, excluding: sessionIDs).withPassages(loaded)
        var options = Tracker.Options(method: method, windowMs: windowMs, walkingSpeed: pace.metersPerSecond, hold: hold,
                                      wknnSigma: wknnSigma, beaconsSigma: beaconsSigma)
        options.minBLERSSI = bleReadings.minRSSI
        options.bleKey = bleReadings.bleKey
        let tracker = Tracker(models: models, fixedMap: fixedMap, options: options)
        let view = TrackView(json: json || !Terminal.stdoutIsTTY, truth: truth, auto: fixedMap == nil, hold: hold)
        let publisher = try publishing.publisher(ws)

        // The feed and its clock.
        let clock: any MeasurementClock
        let limitMs = duration.map { Int(($0 * 1000).rounded()) }
        var description: String
        if let scenarioValue, let loaded {
            var envs: [RadioEnvironment] = []
            var floors: [String: Int] = [:]
            for m in loaded.appConfig.maps {
                if let f = m.floor { floors[m.id] = f }
                let needed = scenarioValue.legs.contains { $0.mapID == m.id }
                if needed {
                    envs.append(try ws.radioEnvironment(map: m.id, loaded: loaded))
                } else if ws.environmentPath(map: m.id, loaded: loaded) != nil {
                    envs.append(try ws.radioEnvironment(map: m.id, loaded: loaded))
                }
            }
            let scale = try ws.map(scenarioValue.mapID, in: loaded).scale
            let seed = capture.seed ?? UInt64.random(in: 1...(1 << 53))
            if capture.seed == nil { Terminal.err("simulated radios: seed \(seed) (--seed \(seed) repeats this run)") }
            if !capture.ideal {
                for i in envs.indices { envs[i].propagation.realism = ws.realism(map: envs[i].map, loaded: loaded, seed: seed) }
            }
            let sim = TrackSimulation(scenario: scenarioValue, environments: envs, floors: floors, pace: pace, scale: scale, seed: seed,
                                      offRouteM: offRoute)
            let span = min(sim.durationMs, limitMs ?? Int.max)
            clock = capture.fast ? VirtualClock(startDate: Date(timeIntervalSinceNow: -Double(span) / 1000)) : MonotonicClock()
            description = "simulated walk of \(scenarioValue.scenarioID) (\(String(format: "%.0f", Double(sim.durationMs) / 1000)) s)"
            try await run(SimulationFeed(simulation: sim), tracker: tracker, clock: clock, intervalMs: intervalMs,
                          limitMs: limitMs, view: view, description: description, publisher: publisher)
        } else if let table, let feed = tableFeed {
            clock = VirtualClock(startDate: Date(timeIntervalSinceNow: -Double(feed.endMs ?? 0) / 1000))
            description = "table \(table) (\(Terminal.counted(feed.rows.count, "row")))"
            try await run(feed, tracker: tracker, clock: clock, intervalMs: intervalMs, limitMs: limitMs, view: view,
                          description: description, publisher: publisher)
        } else if session != nil {
            let span = sessionDocs.map(\.endMs).max() ?? 0
            clock = VirtualClock(startDate: Date(timeIntervalSinceNow: -Double(span) / 1000))
            description = "stored walk \(session!) (\(Terminal.counted(sessionDocs.count, "document")))"
            try await run(SessionFeed(documents: sessionDocs), tracker: tracker, clock: clock, intervalMs: intervalMs,
                          limitMs: limitMs, view: view, description: description, publisher: publisher)
        } else {
            // A fast replay is BLE's alone: real Wi-Fi cannot run on its virtual clock.
            let radios = try capture.radios(enabled: settings.radios)
                .intersection(capture.replaysBLE && capture.fast ? [.ble] : [.ble, .wifi])
            if radios.isEmpty { throw CommandFailure("positioning uses BLE and Wi-Fi: turn on at least one of them", .usage) }
            guard let loaded else { throw CommandFailure("no app config was found", .notFound) }
            // A replay is decoded as it plays: memory stays flat however long the capture.
            let setup = try ws.captureSetup(map: fixedMap ?? "", loaded: loaded, capture: capture, radios: radios,
                                            spanMs: capture.replaysBLE ? nil : 0, streamReplay: true)
            let replayEnd = Replay.provider(in: setup).map(\.spanMs)
            description = capture.replaysBLE ? "replay of \(capture.bleSource!)" : "live radios (\(radios.map(\.label).sorted().joined(separator: ", ")))"
            try await run(ProviderFeed(setup: setup, level: fixedMap ?? "", endMs: replayEnd), tracker: tracker,
                          clock: setup.clock, intervalMs: intervalMs, limitMs: limitMs, view: view, description: description,
                          publisher: publisher)
        }
    }

    /// The loop: tick the feed, fill the window, one position per interval, until the feed ends, the limit or Ctrl-C.
    func run<F: TrackFeed>(_ feed: F, tracker: Tracker, clock: any MeasurementClock, intervalMs: Int, limitMs: Int?,
                           view: TrackView, description: String, publisher: PositionPublisher?) async throws {
        let endMs = min(feed.endMs ?? Int.max, limitMs ?? Int.max)
        Terminal.err("tracking: \(description); \(tracker.fixedMap.map { "map \($0)" } ?? "auto-map over \(tracker.models.keys.sorted().joined(separator: ", "))"), \(tracker.options.method.rawValue), one position every \(interval) from the last \(window)")
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = try await Interrupts.cancellable { [feed, tracker] in
            var feed = feed, tracker = tracker
            var report = TrackReport(view: view)
            try await feed.start()
            var t = 0
            var nextPosition = intervalMs
            let tick = min(100, intervalMs)
            do {
                while t < endMs {
                    t = min(t + tick, endMs)
                    try await clock.sleep(untilMs: t)
                    try Task.checkCancellation()
                    report.samples += await feed.advance(toMs: t, into: &tracker)
                    if t >= nextPosition {
                        nextPosition += intervalMs
                        let point = tracker.position(atMs: t)
                        report.record(point, atMs: t, wallTime: clock.wallTime(atMs: t), truth: feed.truth(atMs: t),
                                      radios: tracker.windowRadios)
                        if let point {
                            publisher?.add(map: point.map, x: point.x, y: point.y, accuracyM: point.accuracyM,
                                           time: clock.wallTime(atMs: t))
                        }
                    }
                }
            } catch is CancellationError {
                // Ctrl-C or SIGTERM is how live tracking ends: the summary still comes.
            } catch {
                await feed.stop()
                throw error
            }
            await feed.stop()
            report.endMs = t
            return report
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        outcome.finish(cpuSeconds: seconds)
        try await publisher?.finish()
        if outcome.positions == 0 && outcome.endMs >= intervalMs {
            Terminal.err("note: no position: what was heard (\(Terminal.counted(outcome.samples, "sample"))) matched no radiomap or beacon registry of \(tracker.models.keys.sorted().joined(separator: ", "))")
        }
    }

    /// Models of the maps: each one's stored radiomap (not the replayed session's own documents) and registry.
    func mapModels(ws: Workspace, loaded: LoadedConfig?, maps: [String], excluding: Set<String>) throws -> [MapModel] {
        var store: SQLiteDocumentStore?
        do { store = try ws.openStore(.read) } catch let e as CommandFailure {
            // Beacons alone need no database; the other methods do.
            guard method == .beacons, e.status == .notFound else { throw e }
        }
        let selection = try train.map { try HoldoutOptions.selection($0, "--train") }
        var stored: [String: [Fingerprint]] = [:]
        if let store, method != .beacons {
            for id in maps {
                stored[id] = bleReadings.apply(try AnalysisInput.fingerprints(
                    AnalysisInput.texts(store, ListQuery(level: id)).filter { !excluding.contains($0.id) })
                    .filter { selection?.matches($0) ?? true })
            }
        }
        // An imported dataset's maps are in metres and need no app config.
        let metric = Set(stored.filter { !$0.value.isEmpty && $0.value.allSatisfy(\.labels.inMetres) }.keys)
        var scales = try AnalysisInput.scales(ws, levels: Set(maps).subtracting(metric))
        for id in metric { scales[id] = 1 }
        var models: [MapModel] = []
        for id in maps {
            let mpu = scales[id] ?? MapScale.jBuilding.metersPerUnit
            var radiomap: Radiomap?
            if let fps = stored[id], !fps.isEmpty { radiomap = Radiomap(fps, k: k) }
            var locator: BeaconLocator?
            if method != .wknn {
                let loc = BeaconRegistryFile(path: map == id ? beacons : nil, pathLossExponent: pathLossExponent,
                                             measuredPower: measuredPower)
                locator = try loc.locator(ws: ws, loaded: loaded, level: id, metersPerUnit: mpu)
            }
            models.append(MapModel(id: id, floor: loaded?.appConfig.map(id: id)?.floor, metersPerUnit: mpu,
                                   radiomap: radiomap, locator: locator))
        }
        let usable = models.filter { (method != .beacons && $0.radiomap != nil) || (method != .wknn && $0.locator != nil) }
        if usable.isEmpty {
            let what = switch method {
            case .wknn: "no stored radiomap (record one with `fprint walk` or `fprint measure`)"
            case .beacons: "no beacon registry (beacons/<map>.json in your config folder or beside the app config, or --beacons)"
            case .fused: "neither a stored radiomap nor a beacon registry"
            }
            throw CommandFailure("\(maps.joined(separator: ", ")): \(what)", .notFound)
        }
        if method == .fused && maps.count == 1, let m = models.first {
            if m.radiomap == nil { Terminal.err("note: \(m.id) has no stored radiomap: fused uses the beacons alone") }
            if m.locator == nil { Terminal.err("note: \(m.id) has no beacon registry: fused uses the radiomap alone") }
        }
        return models
    }

    /// A table read as `fprint import` reads it, as a feed on `map`.
    static func tableFeed(_ file: String, columns: TableColumnOptions, map: String) throws -> TableFeed {
        do {
            let csv = try CSVFile.read(path: file)
            return try TableFeed(table: try TableReader.read(csv, mapping: columns.mapping), map: map)
        } catch let error as DatasetError {
            throw CommandFailure(error.description, error.description.contains("no such file") ? .notFound : .dataError)
        }
    }

    /// A stored walk's documents in seq order, as a stream on the walk's own clock.
    static func sessionDocuments(_ store: SQLiteDocumentStore, session: String) throws -> ([SessionFeed.Document], Set<String>) {
        let texts = try AnalysisInput.texts(store, ListQuery(sessionId: session))
        guard !texts.isEmpty else { throw CommandFailure("no documents of walk session \(session)", .notFound) }
        var docs: [(seq: Int, doc: SessionFeed.Document)] = []
        for t in texts {
            guard case .object(let o)? = try? CanonicalJSON.parse(t.body) else {
                throw CommandFailure("document \(t.id): not a JSON object", .dataError)
            }
            guard let startMs = o["window"]?["startMs"]?.intValue, let endMs = o["window"]?["endMs"]?.intValue else {
                throw CommandFailure("document \(t.id): no window (not a walk document)", .dataError)
            }
            let x = o["position"]?["x"]?.doubleValue ?? o["x"]?.doubleValue ?? 0
            let y = o["position"]?["y"]?.doubleValue ?? o["y"]?.doubleValue ?? 0
            var samples: [Sample] = []
            if case .array(let items)? = o["bleScans"] {
                for item in items {
                    guard let a = item["address"]?.stringValue, let r = item["rssi"]?.intValue else { continue }
                    // The decoded frame goes along: the registry matches a beacon by the identity it advertises.
                    let beacon = item["beacon"].flatMap { try? CanonicalJSON.decode(Beacon.self, from: $0) }
                    samples.append(.ble(BLEScan(address: a, rssi: Int(r), time: Int(startMs) + Int(item["time"]?.intValue ?? 0),
                                                beacon: beacon)))
                }
            }
            if case .array(let items)? = o["wifiScans"] {
                for item in items {
                    guard let m = item["mac"]?.stringValue, let r = item["rssi"]?.intValue else { continue }
                    samples.append(.wifi(WiFiScan(mac: m, ssid: "", rssi: Int(r), time: Int(startMs) + Int(item["time"]?.intValue ?? 0))))
                }
            }
            let doc = SessionFeed.Document(map: o["level"]?.stringValue ?? "", startMs: Int(startMs), endMs: Int(endMs),
                                           point: MapPoint(x: x, y: y), samples: samples)
            docs.append((Int(o["seq"]?.intValue ?? 0), doc))
        }
        return (docs.sorted { $0.seq < $1.seq }.map(\.doc), Set(texts.map(\.id)))
    }
}

extension TrackMethod: ExpressibleByArgument {}
