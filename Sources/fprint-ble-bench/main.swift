import FPBLE
import FPCore
import FPHCI
import FPStore
import FPTransport
import Foundation

// `make bench` (BLE part, release build). Figures printed, nothing asserted.
//   fprint-ble-bench CAPTURE.btsnoop...
// 1. parse: H4/btsnoop records → LE advertising reports (+ AD structures and
//    beacon decoding), one core, the captures looped: reports/s.
// 2. end to end: captures → BLEScan entries → one measurement document →
//    JSON → SQLite store, as a fast replay does: reports/s.
// 3. sustained: the production reader (HCIEventReader) on a socket fed
//    3,000 reports/s in real time, with and without a 1 s reader stall:
//    reports lost.
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

// 3. Sustained rate. A UDP socket on loopback stands in for the kernel's HCI
// socket: both queue datagrams against SO_RCVBUF (charging each its buffer's
// true size) and drop what does not fit, without slowing the sender.
let leEvents: [(frame: [UInt8], reports: Int)] = events.compactMap { e in
    guard let n = try? AdvertisingReports.parse(HCIEvent(bytes: e[...])).count, n > 0 else { return nil }
    return ([H4Type.event.rawValue] + e, n)
}

func udpSocket() -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// Feeds `rate` reports/s for `seconds` and returns (sent, recorded, granted buffer bytes).
func sustained(rate: Int, seconds: Double, stall: Double?, receiveBuffer: Int32?) async -> (Int, Int, Int) {
    let (receiver, port) = udpSocket()
    let socket = HCISocket(adopting: receiver, device: 0)
    var buffer = socket.receiveBufferBytes
    if var size = receiveBuffer {
        setsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var granted: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(receiver, SOL_SOCKET, SO_RCVBUF, &granted, &length)
        buffer = Int(granted)
    }
    let sink = SampleSink()
    let reader = HCIEventReader(clock: MonotonicClock(), sink: sink)
    reader.start(reading: socket, threadName: "bench-reader")
    let (sender, _) = udpSocket()
    var to = sockaddr_in()
    to.sin_family = sa_family_t(AF_INET)
    to.sin_addr.s_addr = inet_addr("127.0.0.1")
    to.sin_port = port.bigEndian
    let start = now()
    var sent = 0, next = 0, stalled = false
    while now() - start < seconds {
        let elapsed = now() - start
        if let stall, !stalled, elapsed >= seconds / 3 {
            // The reader stops reading for `stall` seconds while the sender goes on.
            stalled = true
            await reader.stop()
            DispatchQueue.global().asyncAfter(deadline: .now() + stall) {
                reader.start(reading: socket, threadName: "bench-reader")
            }
        }
        while Double(sent) < elapsed * Double(rate) {
            let event = leEvents[next % leEvents.count]
            next += 1
            _ = event.frame.withUnsafeBytes { bytes in
                withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(sender, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            sent += event.reports
        }
        usleep(2_000)
    }
    usleep(500_000)  // let the reader empty the queue
    await reader.stop()
    close(sender)
    let recorded = sink.drain().count
    return (sent, recorded, buffer)
}

if !leEvents.isEmpty {
    let rate = 3000
    let (sent, recorded, buffer) = await sustained(rate: rate, seconds: 10, stall: nil, receiveBuffer: nil)
    print(String(format: "BLE sustained %d reports/s for 10 s: %d sent, %d recorded, %d lost (receive buffer granted %d KB)",
                 rate, sent, recorded, sent - recorded, buffer / 1024))
    let (sent2, recorded2, _) = await sustained(rate: rate, seconds: 10, stall: 1, receiveBuffer: nil)
    print(String(format: "  with the reader stalled for 1 s: %d sent, %d lost", sent2, sent2 - recorded2))
    let (sent3, recorded3, buffer3) = await sustained(rate: rate, seconds: 10, stall: 1, receiveBuffer: 212_992)
    print(String(format: "  the same with the kernel's default buffer (%d KB granted): %d lost", buffer3 / 1024, sent3 - recorded3))
}
