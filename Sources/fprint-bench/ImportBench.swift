import FPCore
import Foundation

// `fprint import` of large walk documents (issue 33): 2,000 of the
// store benchmark's walk documents (50 BLE transmitters × 20 reports, 30
// Wi-Fi; ~223 KiB of JSON each, ~456 MB in all) as JSON lines with `_id`
// first, into a fresh database, whole process, 3 timed runs and a 4th for
// the peak RSS. Goal (issue 63): a rate ≥ 50× that of CouchDB 3.5's
// `_bulk_docs` of the first 500 of the same documents (batches of 50, one
// request at a time, ../shared/peers/couchdb.sh), alternated with it in
// the same run (CouchDB takes minutes for all 2,000 on two cores); peak RSS
// below 200 MiB whatever the file size.

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
    let row = String(format: "`fprint import` of %d walk documents of %.0f KiB (%.0f MB of JSON lines) vs CouchDB 3.5 _bulk_docs",
                     documents, Double(bytes) / Double(documents) / 1024, Double(bytes) / 1e6)
    let couch: CouchReference
    do { couch = try CouchReference(dir: dir, peers: peers) } catch {
        Goals.shared.check(row, "no reference: \(error)", met: false, goal: "CouchDB 3.5 from \(peers)/couchdb.sh")
        return
    }
    defer { couch.stop() }
    func importOnce(_ round: Int, peak: Bool) throws -> Measured {
        let db = dir + "/walk-import-\(round).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) } }
        let r = try runMeasured(fprint, ["import", "--db", db, file], environment: env, samplePeak: peak)
        guard r.status == 0, r.stderr.contains("imported \(documents),") else {
            throw BenchError("import of \(file) exited \(r.status): \(r.stderr.suffix(400))")
        }
        return r
    }
    let (runs, couchRuns, load) = try alternated(3, { try importOnce($0, peak: false) }, reference: { round in
        try couch.bulkDocs(file: file, lines: Array(lines.prefix(500)), database: "bench-\(round)")
    })
    let peakMiB = Double(try importOnce(3, peak: true).peakKB) / 1024
    // Seconds per document each side: the ratio of the rates.
    let fprintRates = runs.map { Double(documents) / $0.seconds }, couchRates = couchRuns.map { 500 / $0 }
    Goals.shared.ratio(row, figure: 1 / median(fprintRates),
                       String(format: "%.0f docs/s (%@; CPU %.2f s)", median(fprintRates), secondsLine(runs.map(\.seconds)),
                              median(runs.map(\.cpuSeconds))),
                       reference: 1 / median(couchRates),
                       String(format: "CouchDB %.0f docs/s (the first 500, 50 a request; %@)", median(couchRates),
                              secondsLine(couchRuns)),
                       goal: .faster(50), extra: (peakMiB < 200, String(format: "peak %.0f MiB (goal < 200 MiB)", peakMiB)),
                       load: load)
}

/// A CouchDB 3.5 single node from ../shared/peers/couchdb.sh, running until `stop`.
final class CouchReference {
    let script: String, home: String, url: String

    init(dir: String, peers: String) throws {
        script = peers + "/couchdb.sh"
        home = dir + "/couchdb"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw BenchError("CouchDB not found (\(script))") }
        let started = Self.sh("'\(script)' start '\(home)'")
        guard started.status == 0, let url = started.out.firstMatch(of: /COUCH_URL=(\S+)/).map({ String($0.1) }) else {
            _ = Self.sh("'\(script)' stop '\(home)'")
            throw BenchError("CouchDB did not start: \(started.out.suffix(200))")
        }
        self.url = url
    }

    func stop() { _ = Self.sh("'\(script)' stop '\(home)'") }

    static func sh(_ command: String) -> (status: Int32, out: String) {
        guard let r = try? runMeasured("/bin/sh", ["-c", command], environment: ProcessInfo.processInfo.environment,
                                       samplePeak: false) else { return (-1, "") }
        return (r.status, r.stdout + r.stderr)
    }

    /// `_bulk_docs` of these lines of `file` into a new database, 50 a request,
    /// one request at a time: the seconds the requests took.
    func bulkDocs(file: String, lines: [Range<Int>], database: String) throws -> Double {
        guard Self.sh("curl -sf -X PUT '\(url)/\(database)'").status == 0, let handle = FileHandle(forReadingAtPath: file) else {
            throw BenchError("CouchDB: cannot create the database \(database)")
        }
        defer { try? handle.close() }
        let batchFile = home + "-batch.json"
        var seconds = 0.0
        var i = 0
        while i < lines.count {
            let batch = lines[i..<min(i + 50, lines.count)]
            try handle.seek(toOffset: UInt64(batch.first!.lowerBound))
            let text = handle.readData(ofLength: batch.last!.upperBound - batch.first!.lowerBound)
            var body = Data(#"{"docs":["#.utf8)
            body.append(Data(text.split(separator: UInt8(ascii: "\n")).joined(separator: [UInt8(ascii: ",")])))
            body.append(Data("]}".utf8))
            try body.write(to: URL(fileURLWithPath: batchFile))
            let t0 = DispatchTime.now().uptimeNanoseconds
            let posted = Self.sh("curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @'\(batchFile)' "
                                 + "'\(url)/\(database)/_bulk_docs'")
            seconds += Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
            guard posted.status == 0 else { throw BenchError("CouchDB refused a batch: \(posted.out.suffix(200))") }
            i += batch.count
        }
        _ = Self.sh("curl -sf -X DELETE '\(url)/\(database)'")
        return seconds
    }
}
