// fprint-store-torture: drives SQLiteDocumentStore hard, for the store's
// crash-atomicity test and for ad-hoc benchmarks.
//
//   fprint-store-torture DBPATH
//       Inserts batches of 1–5 documents forever. Ids are `torture-<batch>-<i>`,
//       bodies (~2 KB) carry `batch`, `batchSize` and `index`. Each batch number is
//       printed to stdout (flushed) only after its transaction committed, so a
//       test may SIGKILL the process at any moment and then check that every
//       printed batch is stored and no batch is stored in part. Restarting on the
//       same file continues after the highest batch stored.
//
//   fprint-store-torture --bench DBPATH COUNT [BATCH]
//       Inserts COUNT walk documents of ~80 KB (50 BLE transmitters × 20 samples,
//       30 Wi-Fi BSSs) in batches of BATCH (default 10), lists them and reads some
//       back; prints rates. DBPATH `:memory:` uses an in-memory store.
//       FPRINT_BENCH_PARTS=1 also times FPCore's share of the work.
//
//   fprint-store-torture --bench-list DBPATH COUNT
//       Inserts COUNT small documents, then times `list` (all, limit 50, by level).
import FPCore
import FPStore
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fprint-store-torture: \(message)\n".utf8))
    exit(1)
}

/// A walk measurement document like the engine writes: `transmitters` BLE
/// devices × `samples` advertisements, `wifi` BSSs, a few cells.
func walkBody(transmitters: Int, samples: Int, wifi: Int, seq: Int, createdAtMs: Int64) -> JSONValue {
    var document = MeasurementDocument()
    document.mode = .walk
    document.level = "J1NP"
    document.x = 363 + seq
    document.y = 701
    document.position = .init(x: 363.4 + Double(seq), y: 701.2, rule: "linear", atMs: seq * 2000)
    document.createdAt = ISOTime.string(millisecondsSince1970: createdAtMs)
    document.startTime = document.createdAt
    document.endTime = ISOTime.string(millisecondsSince1970: createdAtMs + 2000)
    document.durationMs = 2000
    document.deviceId = "3f6c1e0a-torture"
    document.hardware = "x86_64"
    document.osId = "debian-12"
    document.sessionId = "walk-session"
    document.seq = seq
    document.scenarioId = "scenarioJ1NP1"
    for t in 0..<transmitters {
        let address = String(format: "C4:7C:8D:%02X:%02X:%02X", t, seq % 256, (t * 7) % 256)
        for s in 0..<samples {
            document.bleScans.append(BLEScan(
                address: address, addressType: "random", rssi: -40 - (t + s) % 55, time: s * 100 + t))
        }
    }
    for w in 0..<wifi {
        document.wifiScans.append(WiFiScan(
            mac: String(format: "00:1a:2b:3c:%02x:%02x", w, seq % 256), ssid: "eduroam-\(w % 4)",
            rssi: -50 - w, time: 1500, frequency: 2412 + 5 * (w % 13), channel: 1 + w % 13))
    }
    document.cellScans = [CellScan(rssi: -85, time: 1000, type: "lte", cid: 1234, lac: 56, mcc: "230", mnc: "01", serving: true)]
    document.providers = ["ble": ProviderStatus(status: .ok, source: "simulated:torture", simulated: true)]
    do {
        return try JSONValueEncoder().encode(document)
    } catch {
        fail("cannot encode the sample document: \(error)")
    }
}

func torture(path: String) throws {
    let store = try SQLiteDocumentStore(path: path)
    // Continue after the highest batch already stored, so restarts never collide.
    var batch = 1
    for summary in try store.list(ListQuery()) {
        let parts = summary.id.split(separator: "-")
        if parts.count == 3, parts[0] == "torture", let b = Int(parts[1]) { batch = max(batch, b + 1) }
    }
    // One template body (~2 KB), built once: building it per document would
    // dominate the loop and make kills land outside the write more often.
    // Small, because the test parses and re-hashes every stored body.
    let template = walkBody(transmitters: 2, samples: 5, wifi: 4, seq: 0, createdAtMs: 1_795_000_000_000)
    while true {
        let size = 1 + (batch * 7) % 5
        var documents: [NewDocument] = []
        for i in 0..<size {
            var body = template
            body["batch"] = .int(Int64(batch))
            body["batchSize"] = .int(Int64(size))
            body["index"] = .int(Int64(i))
            body["createdAt"] = .string(ISOTime.string(millisecondsSince1970: 1_795_000_000_000 + Int64(batch)))
            documents.append(NewDocument(id: "torture-\(batch)-\(i)", body: body))
        }
        try store.insert(documents)
        // Only now is the batch committed; announce it with one unbuffered
        // write, so nothing waits in a stdio buffer when the kill comes.
        FileHandle.standardOutput.write(Data("\(batch)\n".utf8))
        batch += 1
    }
}

func seconds(_ work: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try work()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
}

func bench(path: String, count: Int, batchSize: Int) throws {
    // DBPATH `:memory:` benchmarks the in-memory store (no file I/O at all).
    let store = path == ":memory:" ? try SQLiteDocumentStore.inMemory() : try SQLiteDocumentStore(path: path)
    let base: Int64 = 1_795_000_000_000
    // Bodies are built first: the rate measured is the store's, not the encoder's.
    let bodies = (0..<count).map {
        walkBody(transmitters: 50, samples: 20, wifi: 30, seq: $0, createdAtMs: base + Int64($0) * 2000)
    }
    let jsonBytes = bodies.reduce(0) { $0 + CanonicalJSON.data($1).count }
    let prefix = UUID().uuidString.prefix(8)
    // FPRINT_BENCH_PARTS=1: what FPCore's per-document work costs, which the
    // insert rate includes (serialising, hashing the revision, the summary's
    // time parse) and what reading a body back costs.
    if ProcessInfo.processInfo.environment["FPRINT_BENCH_PARTS"] != nil {
        let sample = Array(bodies.prefix(100))
        let texts = sample.map(CanonicalJSON.data)
        let canonical = seconds { for body in sample { _ = CanonicalJSON.string(body) } }
        let revision = seconds { for body in sample { _ = Revision.next(after: nil, body: body) } }
        let parse = try seconds { for text in texts { _ = try CanonicalJSON.parse(text) } }
        let iso = seconds { for body in sample { _ = ISOTime.milliseconds(body["createdAt"]?.stringValue ?? "") } }
        print(String(format: "per doc: canonical JSON %.2f ms, Revision.next %.2f ms, parse %.2f ms, ISO time %.3f ms",
                     canonical * 10, revision * 10, parse * 10, iso * 10))
    }
    let insertTime = try seconds {
        var start = 0
        while start < count {
            let end = min(start + batchSize, count)
            try store.insert((start..<end).map { NewDocument(id: "bench-\(prefix)-\($0)", body: bodies[$0]) })
            start = end
        }
    }
    let listTime = try seconds { _ = try store.list(ListQuery()) }
    let readCount = min(count, 200)
    let readTime = try seconds { _ = try store.changes(since: 0, limit: readCount) }
    let stored = fileSize(path) + fileSize(path + "-wal")
    print(String(format: "inserted %d docs (%.1f KB JSON each) in %.2f s: %.0f docs/s, %.1f MB/s JSON",
                 count, Double(jsonBytes) / Double(count) / 1024, insertTime, Double(count) / insertTime,
                 Double(jsonBytes) / insertTime / 1e6))
    print(String(format: "file + wal: %.1f MB, %.0f bytes/doc; list of %d: %.1f ms",
                 Double(stored) / 1e6, Double(stored) / Double(max(1, try store.count())), try store.count(), listTime * 1000))
    print(String(format: "read back %d docs with bodies: %.0f docs/s", readCount, Double(readCount) / readTime))
}

func benchList(path: String, count: Int) throws {
    let store = try SQLiteDocumentStore(path: path)
    let levels = ["J1NP", "J2NP", "J3NP"]
    let insertTime = try seconds {
        // Re-running on a filled database only times the queries again.
        var start = try store.count()
        while start < count {
            let end = min(start + 1000, count)
            try store.insert((start..<end).map { i in
                var body = walkBody(transmitters: 1, samples: 1, wifi: 1, seq: i % 1000, createdAtMs: 1_795_000_000_000 + Int64(i) * 1000)
                body["level"] = .string(levels[i % 3])
                return NewDocument(id: String(format: "doc-%08d", i), body: body)
            })
            start = end
        }
    }
    print(String(format: "inserted %d small docs in %.2f s", count, insertTime))

    for (name, query) in [("all", ListQuery()), ("limit 50", ListQuery(limit: 50)), ("level J2NP", ListQuery(level: "J2NP")),
                          ("level J2NP limit 50", ListQuery(level: "J2NP", limit: 50)), ("unsynced", ListQuery(unsyncedOnly: true))] {
        var rows = 0
        var best = Double.infinity
        for _ in 0..<5 { best = min(best, try seconds { rows = try store.list(query).count }) }
        print(String(format: "list %@: %d rows, best of 5: %.1f ms", name, rows, best * 1000))
    }
    var n = 0
    let countTime = try seconds { n = try store.count() }
    print(String(format: "count %d: %.1f ms", n, countTime * 1000))
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count) {
    case ("--bench", 3), ("--bench", 4):
        guard let count = Int(arguments[2]), count > 0 else { fail("COUNT must be a positive number") }
        let batch = arguments.count == 4 ? Int(arguments[3]) ?? 10 : 10
        try bench(path: arguments[1], count: count, batchSize: max(1, batch))
    case ("--bench-list", 3):
        guard let count = Int(arguments[2]), count > 0 else { fail("COUNT must be a positive number") }
        try benchList(path: arguments[1], count: count)
    case (let path?, 1) where !path.hasPrefix("-"):
        try torture(path: path)
    default:
        fail("usage: fprint-store-torture DBPATH | --bench DBPATH COUNT [BATCH] | --bench-list DBPATH COUNT")
    }
} catch {
    fail("\(error)")
}
