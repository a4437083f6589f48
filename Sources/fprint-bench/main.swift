import FPCore
import FPStore
import Foundation

// Benchmarks for `make bench` (release build). Prints figures; asserts nothing.
//
//   fprint-bench [--fprint PATH] [--docs N] [--list-docs N] [--dir DIR]
//                [--eval-only] [--eval-fingerprints N] [--eval-transmitters M]
//                [--sync [--sync-docs N]] [--commands-only] [--keep-dir]
//                [--replay] [--track-only] [--tracking-figures [--runs N] [--seeds a,b] [--out FILE]] [--datasets [--datasets-dir DIR]]
//                [--walk-import-only] [--peers-dir DIR] [--store-only]
//
// 1. Inserts N (10,000) walk documents of realistic size (50 BLE transmitters
//    × 20 reports, 30 Wi-Fi BSS, a few cells and fixes) in walk-sized
//    transactions into a file database: docs/s, JSON bytes/doc, file bytes/doc.
// 2. Grows the database to 100,000 documents and times `fprint list` (the
//    real binary, default output and --json) over it: median of 7 runs.
// 0. First, `fprint eval`'s leave-one-out over 2,000 fingerprints × 300
//    transmitters (EvalBench.swift); --eval-only stops after it. Then, with
//    --fprint, `fprint import` and `fprint eval` as whole processes
//    (CommandBench.swift); --commands-only stops after them.
// --collectors: only 20 `fprint sync` clients at once into `fprint gateway`
//    vs the same into CouchDB 3.5 (CollectorsBench.swift), --peers-dir.
// --datasets: only the public UJI long-term dataset's import and
//    evaluation as whole processes (DatasetBench.swift), from
//    --datasets-dir (default ../shared/datasets).

struct Args {
    var fprint: String?
    var docs = 10_000
    var listDocs = 100_000
    var dir = NSTemporaryDirectory() + "fprint-bench-\(getpid())"
    var evalOnly = false
    var evalFingerprints = 2_000
    var evalTransmitters = 300
    var sync = false
    var syncDocs = 10_000
    var jsonOnly = false
    /// Only the btsnoop replay benchmark (ReplayBench.swift), with the test captures of this folder.
    var replay = false
    /// Only the live-positioning benchmark (TrackBench.swift).
    var trackOnly = false
    /// Only the tracking figures of docs/positioning.md (TrackingFigures.swift): runs per map and method, or these seeds.
    var trackingFigures = false
    var trackingRuns = 30
    var trackingSeeds: [UInt64]?
    var trackingOut: String?
    /// Only the gateway-under-attack figures (AbuseBench.swift).
    var abuse = false
    var captures = "Tests/FPHCITests/Fixtures/captures"
    var commandsOnly = false
    /// Leave the working folder (stores, gateway database) for profiling.
    var keepDir = false
    /// Only the public dataset benchmark (DatasetBench.swift), with the archives of this folder.
    var datasets = false
    var datasetsDir = "../shared/datasets"
    /// Where couchdb.sh is (the CouchDB reference of the import rows).
    var peersDir = "../shared/peers"
    /// Only the import of large walk documents (ImportBench.swift).
    var walkImportOnly = false
    /// Only 20 collectors syncing at once, beside CouchDB (CollectorsBench.swift).
    var collectors = false
    /// Skip eval and the commands: only the store, `list` and `status` figures.
    var storeOnly = false

    init() {
        var it = CommandLine.arguments.dropFirst().makeIterator()
        while let a = it.next() {
            switch a {
            case "--fprint": fprint = it.next()
            case "--docs": docs = Int(it.next() ?? "") ?? docs
            case "--list-docs": listDocs = Int(it.next() ?? "") ?? listDocs
            case "--dir": dir = it.next() ?? dir
            case "--eval-only": evalOnly = true
            case "--eval-fingerprints": evalFingerprints = Int(it.next() ?? "") ?? evalFingerprints
            case "--eval-transmitters": evalTransmitters = Int(it.next() ?? "") ?? evalTransmitters
            case "--sync": sync = true
            case "--sync-docs": syncDocs = Int(it.next() ?? "") ?? syncDocs
            case "--json-only": jsonOnly = true
            case "--replay": replay = true
            case "--track-only": trackOnly = true
            case "--tracking-figures": trackingFigures = true
            case "--runs": trackingRuns = Int(it.next() ?? "") ?? trackingRuns
            case "--seeds":
                let text = it.next() ?? ""
                let seeds = text.split(separator: ",").compactMap { UInt64($0) }
                guard !seeds.isEmpty, seeds.count == text.split(separator: ",").count else {
                    FileHandle.standardError.write(Data("fprint-bench: --seeds takes numbers separated by commas, got '\(text)'\n".utf8))
                    exit(64)
                }
                trackingSeeds = seeds
            case "--out": trackingOut = it.next()
            case "--abuse": abuse = true
            case "--captures": captures = it.next() ?? captures
            case "--commands-only": commandsOnly = true
            case "--keep-dir": keepDir = true
            case "--datasets": datasets = true
            case "--datasets-dir": datasetsDir = it.next() ?? datasetsDir
            case "--peers-dir": peersDir = it.next() ?? peersDir
            case "--walk-import-only": walkImportOnly = true
            case "--collectors": collectors = true
            case "--store-only": storeOnly = true
            default:
                FileHandle.standardError.write(Data("fprint-bench: unknown argument \(a)\n".utf8))
                exit(64)
            }
        }
    }
}

/// A walk document the size a busy floor produces in one 2 s window.
func walkDocument(seq: Int, session: String, rng: inout SeededRandom, bleTransmitters: Int = 50,
                  reportsEach: Int = 20, wifi: Int = 30) -> MeasurementDocument {
    var d = MeasurementDocument()
    d.mode = .walk
    d.level = "J3NP"
    let x = Double.random(in: 100...2000, using: &rng), y = Double.random(in: 100...2900, using: &rng)
    d.x = Int(x.rounded())
    d.y = Int(y.rounded())
    d.position = .init(x: x, y: y, rule: "route-interpolated-at-window-midpoint", atMs: seq * 2000 + 1000)
    let start = 1_795_000_000_000 + Int64(seq) * 2000
    d.startTime = ISOTime.string(millisecondsSince1970: start)
    d.endTime = ISOTime.string(millisecondsSince1970: start + 2000)
    d.createdAt = d.endTime
    d.durationMs = 2000
    d.deviceId = "bench-device"
    d.hostname = "bench"
    d.hardware = "Bench Machine"
    d.osId = "Debian GNU/Linux 12 (bookworm) / kernel 6.1.0"
    for t in 0..<bleTransmitters {
        let address = String(format: "C5:D5:21:51:%02X:%02X", t / 256, t % 256)
        for r in 0..<reportsEach {
            d.bleScans.append(BLEScan(
                address: address, addressType: "public", rssi: -50 - Int.random(in: 0...45, using: &rng),
                time: r * 100 + Int.random(in: 0...10, using: &rng), eventType: "ADV_NONCONN_IND",
                beacon: Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: t, minor: t * 7,
                               measuredPower: -66)))
        }
    }
    for w in 0..<wifi {
        d.wifiScans.append(WiFiScan(mac: String(format: "02:11:22:33:%02X:%02X", w / 256, w % 256), ssid: "eduroam",
                                    rssi: -40 - Int.random(in: 0...50, using: &rng), time: 1500,
                                    frequency: w % 2 == 0 ? 2437 : 5180, channel: w % 2 == 0 ? 6 : 36))
    }
    for c in 0..<3 {
        d.cellScans.append(CellScan(rssi: -80 - c * 5, time: 1000, type: "lte", cid: 26015 + c, lac: 37101, psc: 211 + c,
                                    mcc: "230", mnc: "01", serving: c == 0))
    }
    d.geolocation = [GeoFix(lat: 50.2041, long: 15.8294, time: 1000, alt: 240, accuracy: 15)]
    d.providers = ["ble": ProviderStatus(status: .ok, source: "simulated:bench", simulated: true, samples: d.bleScans.count)]
    d.sessionId = session
    d.seq = seq
    d.scenarioId = "scenarioJ3NP1"
    return d
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let t0 = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
}

func fileSize(_ path: String) -> Int64 {
    var total: Int64 = 0
    for suffix in ["", "-wal"] {
        if let a = try? FileManager.default.attributesOfItem(atPath: path + suffix), let n = a[.size] as? Int64 { total += n }
    }
    return total
}

/// This environment with every XDG folder under `dir`: a benchmarked
/// fprint reads no config and writes no state of the user running it.
func benchEnvironment(_ dir: String) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    for (variable, folder) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"),
                               ("XDG_STATE_HOME", "state")] {
        env[variable] = dir + "/" + folder
    }
    return env
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// Parse and canonical-write speed on one walk document (every stored,
/// synced and replayed revision goes through both).
func jsonBench() throws {
    var rng = SeededRandom(seed: 7)
    let body = try JSONValueEncoder().encode(walkDocument(seq: 1, session: "json", rng: &rng))
    let text = CanonicalJSON.data(body)
    if let path = ProcessInfo.processInfo.environment["FPRINT_BENCH_SAVE_DOC"] { try text.write(to: URL(fileURLWithPath: path)) }
    let rounds = 200
    let megabytes = Double(text.count * rounds) / 1_000_000
    var writes: [Double] = [], parses: [Double] = [], hashes: [Double] = [], skims: [Double] = []
    let bytes = [UInt8](text)
    for _ in 0..<3 {
        skims.append(seconds { for _ in 0..<rounds { precondition(JSONSkim(bytes).members(of: 0..<bytes.count) != nil) } })
        writes.append(seconds { for _ in 0..<rounds { _ = CanonicalJSON.data(body) } })
        parses.append(try seconds { for _ in 0..<rounds { _ = try CanonicalJSON.parse(text) } })
        hashes.append(seconds { for _ in 0..<rounds { _ = Revision.next(after: nil, canonicalBody: text) } })
    }
    print(String(format: "json: %.1f KB document: canonical write %.0f MB/s, parse %.0f MB/s, canonical check (skim) %.0f MB/s, "
                 + "revision hash %.0f MB/s", Double(text.count) / 1024, megabytes / median(writes), megabytes / median(parses),
                 megabytes / median(skims), megabytes / median(hashes)))
}

func run() throws {
    let args = Args()
    if args.trackingFigures {
        guard let fprint = args.fprint else { throw BenchError("--tracking-figures needs --fprint PATH") }
        try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        let met = try runTrackingFigures(fprint: fprint, dir: args.dir, runs: args.trackingRuns, seeds: args.trackingSeeds,
                                         out: args.trackingOut)
        if !met { exit(1) }
        return
    }
    if args.trackOnly {
        guard let fprint = args.fprint else { throw BenchError("--track-only needs --fprint PATH") }
        try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try runTrackBench(fprint: fprint, dir: args.dir)
        return
    }
    if args.abuse {
        guard let fprint = args.fprint else { throw BenchError("--abuse needs --fprint PATH") }
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try runAbuseBench(fprint: fprint, dir: args.dir)
        return
    }
    if args.datasets {
        guard let fprint = args.fprint else { throw BenchError("--datasets needs --fprint PATH") }
        try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try datasetBench(fprint: fprint, dir: args.dir, datasets: args.datasetsDir)
        return
    }
    if args.walkImportOnly {
        guard let fprint = args.fprint else { throw BenchError("--walk-import-only needs --fprint PATH") }
        try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try walkImportBench(fprint: fprint, dir: args.dir, peers: args.peersDir)
        return
    }
    if args.collectors {
        guard let fprint = args.fprint else { throw BenchError("--collectors needs --fprint PATH") }
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try runCollectorsBench(fprint: fprint, dir: args.dir, peers: args.peersDir)
        return
    }
    if args.replay {
        guard let fprint = args.fprint else { throw BenchError("--replay needs --fprint PATH") }
        try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
        defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
        try runReplayBench(fprint: fprint, dir: args.dir, captures: args.captures)
        return
    }
    if !args.storeOnly { try jsonBench() }
    if args.jsonOnly { return }
    if !args.storeOnly { evalBench(fingerprints: args.evalFingerprints, transmitters: args.evalTransmitters) }
    if args.evalOnly { return }
    try FileManager.default.createDirectory(atPath: args.dir, withIntermediateDirectories: true)
    defer { if !args.keepDir { try? FileManager.default.removeItem(atPath: args.dir) } }
    if args.sync {
        // Sync benchmark only (see SyncBench.swift).
        guard let fprint = args.fprint else { throw BenchError("--sync needs --fprint PATH") }
        try runSyncBench(fprint: fprint, dir: args.dir, docs: args.syncDocs)
        return
    }
    if let fprint = args.fprint, !args.storeOnly {
        try commandBench(fprint: fprint, dir: args.dir, fingerprints: args.evalFingerprints,
                         transmitters: args.evalTransmitters)
        try walkImportBench(fprint: fprint, dir: args.dir, peers: args.peersDir)
    }
    if args.commandsOnly { return }
    let dbPath = args.dir + "/bench.sqlite"
    let store = try SQLiteDocumentStore(path: dbPath)
    var rng = SeededRandom(seed: 2026)
    let encoder = JSONValueEncoder()

    // Documents are built before timing: the benchmark measures the store.
    let batch = 50  // one walk of ~100 s
    print("store: building \(args.docs) walk documents (50 BLE × 20 reports, 30 Wi-Fi)…")
    var docs: [NewDocument] = []
    docs.reserveCapacity(args.docs)
    var jsonBytes = 0
    for i in 0..<args.docs {
        let d = walkDocument(seq: i % batch + 1, session: "bench-\(i / batch)", rng: &rng)
        let body = try encoder.encode(d)
        if i < 100 { jsonBytes += CanonicalJSON.data(body).count }
        docs.append(NewDocument(id: String(format: "bench-%08d", i), body: body))
    }
    let insertSeconds = try seconds {
        var i = 0
        while i < docs.count {
            try store.insert(Array(docs[i..<min(i + batch, docs.count)]))
            i += batch
        }
    }
    let rate = Double(args.docs) / insertSeconds
    print(String(format: "store: inserted %d documents in %.2f s: %.0f docs/s (target ≥ 2,000)", args.docs, insertSeconds, rate))
    // Where the time goes: the CPU part every insert does before SQLite (canonical form and revision hash).
    let prepareSeconds = seconds {
        for document in docs { _ = Revision.next(after: nil, canonicalBody: CanonicalJSON.data(document.body)) }
    }
    print(String(format: "store: of which canonical JSON + revision hash %.2f s (%.0f docs/s alone)", prepareSeconds,
                 Double(args.docs) / prepareSeconds))
    print(String(format: "store: %.1f KB canonical JSON per document, %.1f KB on disk per document",
                 Double(jsonBytes) / 100 / 1024, Double(fileSize(dbPath)) / Double(args.docs) / 1024))
    docs.removeAll()

    // Grow to listDocs with smaller bodies: list latency depends on rows, not body size.
    let extra = max(0, args.listDocs - args.docs)
    if extra > 0 {
        print("list: growing the database to \(args.listDocs) documents…")
        var i = 0
        while i < extra {
            var chunk: [NewDocument] = []
            for j in i..<min(i + 1000, extra) {
                let d = walkDocument(seq: j % batch + 1, session: "grow-\(j / batch)", rng: &rng, bleTransmitters: 5,
                                     reportsEach: 2, wifi: 3)
                chunk.append(NewDocument(id: String(format: "grow-%08d", j), body: try encoder.encode(d)))
            }
            try store.insert(chunk)
            i += 1000
        }
    }
    print("list: \(try store.count()) documents in the database")
    var inProcess: [Double] = []
    for _ in 0..<7 { inProcess.append(try seconds { _ = try store.list(ListQuery(limit: 100)) }) }
    print(String(format: "list: store.list(limit 100) median %.2f ms", median(inProcess) * 1000))
    var all: [Double] = []
    for _ in 0..<3 { all.append(try seconds { _ = try store.list(ListQuery()) }) }
    print(String(format: "list: store.list(all %d) median %.1f ms", try store.count(), median(all) * 1000))

    guard let fprint = args.fprint else {
        print("list: pass --fprint PATH to time the fprint binary")
        return
    }
    try storeCommandBench(fprint: fprint, db: dbPath, documents: try store.count(), env: benchEnvironment(args.dir))
}

do {
    try run()
    exit(Goals.shared.finish())
} catch {
    FileHandle.standardError.write(Data("fprint-bench: \(error)\n".utf8))
    exit(1)
}
