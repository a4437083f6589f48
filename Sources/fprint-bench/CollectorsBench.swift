import FPCore
import FPStore
import FPTestSupport
import Foundation

// `fprint-bench --collectors --fprint PATH --peers-dir DIR` (part of `make
// bench`; issue 63): 20 collectors at once — 20 `fprint sync --push-only`
// processes, 500 new documents of ~19.7 KB each — into `fprint gateway`,
// then all 20 again with nothing new (a no-op each), beside the same 20
// processes into a CouchDB 3.5 single node (../shared/peers/couchdb.sh),
// alternated. Judged: fprint's aggregate rate ≥ CouchDB's (a ratio of the
// wall times for all 10,000 documents), every client exiting 0 and every
// document arriving. Meanwhile a reader GETs one document over one
// connection, request after request: its median and p99 are reported.

/// One server's round: 20 pushes at once, then 20 no-ops at once.
struct CollectorsRound {
    var pushSeconds: Double
    var noopSeconds: Double
    /// A line per client that did not exit 0.
    var failures: [String]
    /// The reader's request times during the pushes, milliseconds.
    var readerMs: [Double]
    /// Documents on the server afterwards (the reader's one included).
    var stored: Int
}

func runCollectorsBench(fprint: String, dir: String, peers: String, clients: Int = 20, documentsEach: Int = 500) throws {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let stores = try collectorStores(dir: dir, clients: clients, documentsEach: documentsEach)
    let row = "\(clients) collectors at once, \(documentsEach) new documents each (fprint sync --push-only) "
        + "vs the same into CouchDB 3.5"
    var env = benchEnvironment(dir)
    env.removeValue(forKey: "FPRINT_TOKEN")
    let couch: CouchReference
    do { couch = try CouchReference(dir: dir, peers: peers) } catch {
        Goals.shared.check(row, "no reference: \(error)", met: false, goal: "CouchDB 3.5 from \(peers)/couchdb.sh")
        return
    }
    defer { couch.stop() }
    var gateway: BenchGateway?
    defer { gateway?.stop() }
    let total = clients * documentsEach
    // Each round a new database on each server, so every push starts from nothing.
    let (ours, theirs, load) = try alternated(2, { round -> CollectorsRound in
        gateway?.stop()
        let g = try BenchGateway(fprint: fprint, db: dir + "/gateway-\(round).sqlite", secret: dir + "/gw-secret", environment: env)
        gateway = g
        var tokened = env
        tokened["FPRINT_TOKEN"] = g.token
        return try collectorsRound(fprint: fprint, stores: stores, url: g.url, environment: tokened,
                                   headers: ["Authorization: Bearer \(g.token)"])
    }, reference: { round -> CollectorsRound in
        let url = couch.url + "/collectors-\(round)"
        guard CouchReference.sh("curl -sf -X PUT '\(url)'").status == 0 else { throw BenchError("CouchDB: cannot create \(url)") }
        return try collectorsRound(fprint: fprint, stores: stores, url: url, environment: env, headers: [])
    })
    func text(_ rounds: [CollectorsRound]) -> String {
        let rate = Double(total) / median(rounds.map(\.pushSeconds))
        let reads = rounds.flatMap(\.readerMs)
        return String(format: "%.0f docs/s (%@), no-op round %.2f s, reader %d GETs median %.1f ms p99 %.1f ms", rate,
                      secondsLine(rounds.map(\.pushSeconds)), median(rounds.map(\.noopSeconds)), reads.count,
                      reads.isEmpty ? .nan : median(reads), reads.isEmpty ? .nan : percentile(reads, 0.99))
    }
    let failures = (ours + theirs).flatMap(\.failures)
    let lost = ours.filter { $0.stored != total + 1 }.count + theirs.filter { $0.stored != total + 1 }.count
    for f in failures.prefix(5) { print("collectors: \(f)") }
    Goals.shared.ratio(row, figure: median(ours.map(\.pushSeconds)), text(ours),
                       reference: median(theirs.map(\.pushSeconds)), "CouchDB " + text(theirs), goal: .faster(1),
                       extra: (failures.isEmpty && lost == 0,
                               "\(failures.count) client errors, \(lost) rounds missing documents (goal: none)"),
                       load: load)
}

/// `clients` stores of `documentsEach` new documents of ~19.7 KB (the sync bench's size), ids unique across them.
func collectorStores(dir: String, clients: Int, documentsEach: Int) throws -> [String] {
    var rng = SeededRandom(seed: 20)
    let encoder = JSONValueEncoder()
    return try (0..<clients).map { c in
        let path = dir + "/collector-\(c).sqlite"
        let store = try SQLiteDocumentStore(path: path)
        let documents = try (0..<documentsEach).map { j in
            NewDocument(id: String(format: "c%02d-%05d", c, j),
                        body: try encoder.encode(syncBenchDocument(j, session: "collector-\(c)", rng: &rng)))
        }
        try store.insert(documents)
        return path
    }
}

/// Every store pushed to `url` at once (one process each), then again (nothing new), with a reader meanwhile.
func collectorsRound(fprint: String, stores: [String], url: String, environment: [String: String],
                     headers: [String]) throws -> CollectorsRound {
    // Signed as the bench's user, as the gateway requires of a writer's document.
    let probe = url + "/reader-probe"
    let put = try runMeasured("/usr/bin/curl", ["-sf", "-X", "PUT", "-H", "Content-Type: application/json"]
                                  + headers.flatMap { ["-H", $0] } + ["--data-binary", #"{"couchbase_sync_gateway_id":"bench","reader":true}"#, probe],
                              environment: environment, samplePeak: false)
    guard put.status == 0 else { throw BenchError("cannot PUT \(probe): curl exit \(put.status) \(put.stderr)") }
    let pushAll = {
        try together(stores.count) { i in
            try runMeasured(fprint, ["sync", "--push-only", "--quiet", "--gateway", url, "--db", stores[i]],
                            environment: environment, samplePeak: false)
        }
    }
    let reader = try LatencyReader(url: probe, headers: headers, environment: environment)
    let push = try pushAll()
    let readerMs = reader.stop()
    let noop = try pushAll()  // nothing new: a no-op each
    let failures = zip(push.runs + noop.runs, Array(stores.indices) + Array(stores.indices)).compactMap { run, i in
        run.status == 0 ? nil : "client \(i) exited \(run.status): \(run.stderr.suffix(200))"
    }
    let info = try runMeasured("/usr/bin/curl", ["-sf"] + headers.flatMap { ["-H", $0] } + [url], environment: environment,
                               samplePeak: false)
    let stored = info.stdout.firstMatch(of: /"doc_count":([0-9]+)/).flatMap { Int($0.1) } ?? -1
    return CollectorsRound(pushSeconds: push.seconds, noopSeconds: noop.seconds, failures: failures, readerMs: readerMs,
                           stored: stored)
}

/// Runs `count` jobs at once, a thread each (not the cores' worth a dispatch
/// pool would run): the wall time until the last ended, and each job's result.
func together(_ count: Int, _ job: @escaping @Sendable (Int) throws -> Measured) throws -> (seconds: Double, runs: [Measured]) {
    let results = ResultBox<Measured>(count: count)
    let group = DispatchGroup()
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<count {
        group.enter()
        Thread.detachNewThread {
            results.set(i, Result { try job(i) })
            group.leave()
        }
    }
    group.wait()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return (seconds, try results.values.map { try $0!.get() })
}

/// curl GETting one URL over one connection, request after request, until
/// stopped: each request's time from curl's own `time_total`.
final class LatencyReader {
    private let process = Process()
    private let out = DataBox()
    private let drained = DispatchGroup()
    private let config: String

    init(url: String, headers: [String], environment: [String: String], requests: Int = 20_000) throws {
        config = NSTemporaryDirectory() + "fprint-bench-reader-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).curlrc"
        let entry = "url = \"\(url)\"\noutput = \"/dev/null\"\n"
        try String(repeating: entry, count: requests).write(toFile: config, atomically: false, encoding: .utf8)
        // Line-buffered: curl is stopped by a signal, and a pipe's full stdio buffer would lose its last 4 KB.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", "/usr/bin/curl", "-s", "-K", config, "-w", "%{time_total}\n"] + headers.flatMap { ["-H", $0] }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        out.drain(pipe.fileHandleForReading, group: drained)
    }

    /// Stops the reader; the request times it printed, milliseconds.
    func stop() -> [Double] {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: config)
        drained.wait()
        return out.text.split(separator: "\n").compactMap { Double($0).map { $0 * 1000 } }
    }
}
