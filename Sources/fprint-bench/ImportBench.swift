import FPCore
import Foundation

// `fprint import` of large walk documents (issue 33): 2,000 of the
// store benchmark's walk documents (50 BLE transmitters × 20 reports, 30
// Wi-Fi; ~223 KiB of JSON each, ~456 MB in all) as JSON lines with `_id`
// first, into a fresh database, whole process, 3 timed runs and a 4th for
// the peak RSS (`runTimedThenPeak`). Goals: ≥ 2,000
// docs/s and a peak RSS below 200 MB whatever the file size. The
// reference is CouchDB 3.5's `_bulk_docs` of the first 500 of the same
// documents (batches of 50, one request at a time), from
// ../shared/peers/couchdb.sh.

func walkImportBench(fprint: String, dir: String, peers: String, documents: Int = 2000) throws {
    let file = dir + "/walk-dump.jsonl"
    FileManager.default.createFile(atPath: file, contents: nil)
    guard let out = FileHandle(forWritingAtPath: file) else { throw BenchError("cannot write \(file)") }
    var rng = SeededRandom(seed: 33)
    let encoder = JSONValueEncoder()
    var bytes = 0
    var lines: [Range<Int>] = []
    for j in 0..<documents {
        let d = walkDocument(seq: j % 50 + 1, session: "import-\(j / 50)", rng: &rng)
        var body = CanonicalJSON.bytes(try encoder.encode(d))
        body.removeFirst()  // "{": the members follow `_id`
        let line = Array(#"{"_id":"walk-\#(String(format: "%08d", j))","#.utf8) + body + [UInt8(ascii: "\n")]
        out.write(Data(line))
        lines.append(bytes..<bytes + line.count)
        bytes += line.count
    }
    try out.close()
    let env = benchEnvironment(dir)
    let loadBefore = oneMinuteLoad()
    let (runs, peakKB) = try runTimedThenPeak(fprint, runs: 3, environment: env, arguments: { round in
        let db = dir + "/walk-import-\(round).sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        return ["import", "--db", db, file]
    }, check: { r in
        guard r.status == 0, r.stderr.contains("imported \(documents),") else {
            throw BenchError("import of \(file) exited \(r.status): \(r.stderr.suffix(400))")
        }
    })
    for round in 0...3 {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: dir + "/walk-import-\(round).sqlite" + suffix) }
    }
    let load = max(loadBefore, oneMinuteLoad())
    let rate = Double(documents) / median(runs.map(\.seconds)), peakMB = Double(peakKB) * 1024 / 1e6
    Goals.shared.check(String(format: "`fprint import` of %d walk documents of %.0f KiB (%.0f MB of JSON lines)", documents,
                              Double(bytes) / Double(documents) / 1024, Double(bytes) / 1e6),
                       String(format: "%.0f docs/s, peak %.0f MB (a 4th run, sampled); %@", rate, peakMB, timedLine(runs)),
                       met: rate >= 2000 && peakMB < 200, goal: "≥ 2,000 docs/s, peak < 200 MB",
                       reference: couchBulkDocs(file: file, lines: lines, dir: dir, peers: peers), load: load)
}

/// CouchDB's `_bulk_docs` of the file's first `limit` documents, 50 a
/// request: docs/s (CouchDB takes minutes for all 2,000 on two cores).
func couchBulkDocs(file: String, lines allLines: [Range<Int>], dir: String, peers: String, limit: Int = 500) -> String {
    let lines = Array(allLines.prefix(limit))
    let script = peers + "/couchdb.sh", home = dir + "/couchdb"
    guard FileManager.default.isExecutableFile(atPath: script) else { return "CouchDB not found (\(script))" }
    func sh(_ command: String) -> (status: Int32, out: String) {
        guard let r = try? runMeasured("/bin/sh", ["-c", command], environment: ProcessInfo.processInfo.environment,
                                       samplePeak: false) else { return (-1, "") }
        return (r.status, r.stdout + r.stderr)
    }
    let started = sh("'\(script)' start '\(home)'")
    defer { _ = sh("'\(script)' stop '\(home)'") }
    guard started.status == 0, let url = started.out.firstMatch(of: /COUCH_URL=(\S+)/).map({ String($0.1) }) else {
        return "CouchDB did not start: \(started.out.suffix(200))"
    }
    guard sh("curl -sf -X PUT '\(url)/bench'").status == 0, let handle = FileHandle(forReadingAtPath: file) else {
        return "CouchDB: cannot create the database"
    }
    defer { try? handle.close() }
    let batchFile = dir + "/couch-batch.json"
    var seconds = 0.0
    var i = 0
    while i < lines.count {
        let batch = lines[i..<min(i + 50, lines.count)]
        try? handle.seek(toOffset: UInt64(batch.first!.lowerBound))
        let text = handle.readData(ofLength: batch.last!.upperBound - batch.first!.lowerBound)
        var body = Data(#"{"docs":["#.utf8)
        body.append(Data(text.split(separator: UInt8(ascii: "\n")).joined(separator: [UInt8(ascii: ",")])))
        body.append(Data("]}".utf8))
        guard (try? body.write(to: URL(fileURLWithPath: batchFile))) != nil else { return "CouchDB: cannot write a batch" }
        let t0 = DispatchTime.now().uptimeNanoseconds
        let posted = sh("curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @'\(batchFile)' '\(url)/bench/_bulk_docs'")
        seconds += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
        guard posted.status == 0 else { return "CouchDB refused a batch: \(posted.out.suffix(200))" }
        i += batch.count
    }
    return String(format: "CouchDB 3.5 _bulk_docs of the first %d: %.0f docs/s (%.1f s)", lines.count,
                  Double(lines.count) / seconds, seconds)
}
