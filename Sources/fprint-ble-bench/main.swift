import FPBLE
import FPCore
import FPHCI
import FPStore
import Foundation

// `make bench` (BLE part, release build). Figures printed, nothing asserted.
//   fprint-ble-bench CAPTURE.btsnoop...
// 1. parse: H4/btsnoop records → LE advertising reports (+ AD structures and
//    beacon decoding), one core, the captures looped: reports/s.
// 2. end to end: captures → BLEScan entries → one measurement document →
//    JSON → SQLite store, as a fast replay does: reports/s.
let files = Array(CommandLine.arguments.dropFirst())
let captures = files.compactMap { FileManager.default.contents(atPath: $0).map { Array($0) } }
guard !captures.isEmpty else { print("usage: fprint-ble-bench CAPTURE.btsnoop..."); exit(64) }

func now() -> Double { Date().timeIntervalSince1970 }

// Pre-extract event packets so the parse figure is the parser, not file I/O.
var events: [[UInt8]] = []
for c in captures {
    if let f = try? BtsnoopFile(bytes: c), let records = try? f.records() {
        events += records.filter { $0.type == .event }.map { Array($0.packet) }
    }
}

var reports = 0
var t0 = now()
while now() - t0 < 3 {
    for e in events {
        if let rs = try? AdvertisingReports.parse(HCIEvent(bytes: e[...])) { reports += rs.count }
    }
}
var dt = now() - t0
print(String(format: "BLE parse (event → reports): %.0f reports/s on one core", Double(reports) / dt))

reports = 0
var beacons = 0
t0 = now()
while now() - t0 < 3 {
    for e in events {
        guard let rs = try? AdvertisingReports.parse(HCIEvent(bytes: e[...])) else { continue }
        for r in rs {
            reports += 1
            if let ad = try? AdvertisingData(bytes: r.data), BeaconFrame.decode(ad) != nil { beacons += 1 }
        }
    }
}
dt = now() - t0
print(String(format: "BLE parse + AD + beacon decode: %.0f reports/s on one core", Double(reports) / dt))

let dir = NSTemporaryDirectory() + "fprint-ble-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let store = try SQLiteDocumentStore(path: dir + "/bench.sqlite")
var total = 0
var tCapture = 0.0, tEncode = 0.0, tStore = 0.0
t0 = now()
var rounds = 0
while now() - t0 < 5 {
    var doc = MeasurementDocument()
    let a = now()
    for (i, c) in captures.enumerated() {
        let capture = try BtsnoopCapture(bytes: c, path: files[i])
        doc.bleScans += capture.scans
    }
    let b = now()
    let body = try JSONValueEncoder().encode(doc)
    let c = now()
    _ = try store.insert([NewDocument(id: "bench-\(rounds)", body: body)])
    let d = now()
    tCapture += b - a; tEncode += c - b; tStore += d - c
    total += doc.bleScans.count
    rounds += 1
}
dt = now() - t0
print(String(format: "BLE end to end (btsnoop → document → store): %.0f reports/s (%d documents of %d reports)",
             Double(total) / dt, rounds, total / max(rounds, 1)))
print(String(format: "  of which replay+decode+map %.0f reports/s, document encode %.0f reports/s, store insert %.0f reports/s",
             Double(total) / tCapture, Double(total) / tEncode, Double(total) / tStore))
