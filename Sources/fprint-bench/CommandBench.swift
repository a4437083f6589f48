import FPCore
import Foundation

// `fprint import` and `fprint eval` as a user runs them: the real binary,
// whole process, wall time, CPU time (user + system, all threads: the
// figure to compare when other work shares the machine) and peak RSS
// (median of 3 runs each).
//
// 1. N (2,000) measurements in radio-localization-eval's own format: a
//    couch-view file, ids m1…mN in row order, no createdAt, the synthetic
//    radiomap of evalBench (300 transmitters, each heard at ~60 % of the
//    points, 5 samples). `fprint import`, then `fprint eval --set combined
//    --estimator wknn --k 3`, whose own leave-one-out time is printed beside.
// 2. A CouchDB-style dump of 2,000 static measurements of ~19.7 KB (JSON
//    lines with `_id` and `_rev` first): `fprint import`.

func commandBench(fprint: String, dir: String, fingerprints n: Int, transmitters m: Int) throws {
    let env = benchEnvironment(dir)

    let evalFile = dir + "/eval-\(n).json"
    try evaluatorFile(fingerprints: n, transmitters: m).write(to: URL(fileURLWithPath: evalFile))
    let evalDB = try timedImports(fprint, file: evalFile, label: "\(n) measurements in the evaluator's format", dir: dir,
                                  env: env, target: "< 1 s, < 150 MB")
    var runs: [Measured] = []
    for _ in 0..<3 {
        let r = try runMeasured(fprint, ["eval", "--db", evalDB, "--set", "combined", "--estimator", "wknn", "--k", "3"],
                                environment: env)
        guard r.status == 0 else { throw BenchError("eval failed: \(r.stderr)") }
        runs.append(r)
    }
    let loo = runs.compactMap { r in
        r.stderr.firstMatch(of: /leave-one-out in ([0-9.]+) s/).flatMap { Double($0.1) }
    }
    print(String(format: "command: `fprint eval` WKNN k=3 combined, %d measurements: median %.2f s (CPU %.2f s), peak RSS %.0f MB "
                 + "(target < 1.5 s, < 150 MB); of which leave-one-out %.2f s", n, median(runs.map(\.seconds)),
                 median(runs.map(\.cpuSeconds)), median(runs.map { Double($0.peakKB) / 1000 }), median(loo)))

    let dumpFile = dir + "/couch-dump.jsonl"
    let perDoc = try couchDump(count: 2000).write(to: dumpFile)
    _ = try timedImports(fprint, file: dumpFile, label: String(format: "a CouchDB dump of 2000 static measurements of %.1f KB",
                                                                 Double(perDoc) / 1000), dir: dir, env: env,
                         target: "< 1.2 s, < 150 MB")
}

/// Imports `file` into a fresh database 3 times; prints the median and
/// returns the last database.
func timedImports(_ fprint: String, file: String, label: String, dir: String, env: [String: String], target: String) throws
    -> String
{
    var runs: [Measured] = []
    var db = ""
    for round in 0..<3 {
        db = dir + "/import-\(URL(fileURLWithPath: file).lastPathComponent)-\(round).sqlite"
        let r = try runMeasured(fprint, ["import", "--db", db, file], environment: env)
        guard r.status == 0 else { throw BenchError("import failed: \(r.stderr)") }
        runs.append(r)
    }
    print(String(format: "command: `fprint import` of %@: median %.2f s (CPU %.2f s), peak RSS %.0f MB (target %@)", label,
                 median(runs.map(\.seconds)), median(runs.map(\.cpuSeconds)), median(runs.map { Double($0.peakKB) / 1000 }),
                 target))
    return db
}

/// The evaluator's input: `{"rows":[{"id":"m1","value":{x, y, level, bleScans, wifiScans}}, …]}`.
func evaluatorFile(fingerprints n: Int, transmitters m: Int) -> Data {
    var rng = SeededRandom(seed: 6)
    var out = #"{"rows":["#
    for i in 0..<n {
        var ble: [String] = [], wifi: [String] = []
        for t in 0..<m where Double.random(in: 0..<1, using: &rng) < 0.6 {
            let base = Int.random(in: -100 ... -40, using: &rng)
            for s in 0..<5 {
                let rssi = base + Int.random(in: -3...3, using: &rng)
                if t % 3 == 0 {
                    ble.append(String(format: #"{"address":"C5:D5:21:51:%02X:%02X","rssi":%d,"time":%d}"#, t / 256, t % 256,
                                      rssi, s * 400))
                } else {
                    wifi.append(String(format: #"{"mac":"02:11:22:33:%02x:%02x","rssi":%d,"time":%d}"#, t / 256, t % 256,
                                       rssi, s * 400))
                }
            }
        }
        out += (i == 0 ? "" : ",") + #"{"id":"m\#(i + 1)","value":{"x":\#(Int.random(in: 0...2250, using: &rng)),"#
            + #""y":\#(Int.random(in: 0...2900, using: &rng)),"level":"J3NP","bleScans":[\#(ble.joined(separator: ","))],"#
            + #""wifiScans":[\#(wifi.joined(separator: ","))]}}"#
    }
    return Data((out + "]}").utf8)
}

/// Static measurements as a CouchDB export writes them: one per line,
/// `_id` and `_rev` first, the rest in the order fprint stored it.
struct CouchDump {
    var text: Data
    var bytesPerDocument: Int

    func write(to path: String) throws -> Int {
        try text.write(to: URL(fileURLWithPath: path))
        return bytesPerDocument
    }
}

func couchDump(count: Int) throws -> CouchDump {
    var rng = SeededRandom(seed: 4)
    let encoder = JSONValueEncoder()
    var out = Data()
    for j in 0..<count {
        var d = walkDocument(seq: 1, session: "", rng: &rng, bleTransmitters: 15, reportsEach: 5, wifi: 20)
        d.mode = .static
        d.sessionId = nil
        d.seq = nil
        d.scenarioId = nil
        d.window = nil
        var body = CanonicalJSON.bytes(try encoder.encode(d))
        let id = String(format: "static-%08d", j)
        let rev = Revision.next(after: nil, canonicalBody: body).description
        body.removeFirst()  // "{": the members follow `_id` and `_rev`
        out.append(contentsOf: Array(#"{"_id":"\#(id)","_rev":"\#(rev)","#.utf8) + body + [UInt8(ascii: "\n")])
    }
    return CouchDump(text: out, bytesPerDocument: out.count / max(1, count))
}
