import FPHCI
import Foundation

// Replay benchmark (`fprint-bench --replay --fprint PATH`, issue 13): a 17 MB
// Android-style btsnoop capture with 124,000 advertising reports, replayed by
// the real binary into one stored document (`measure --ble-source btsnoop:…
// --duration all --fast`): whole-process wall time, median of 3, and the
// peak RSS of a 4th run.
// Goal (issue 63): ≥ 10× faster than tshark's field extraction of the same
// capture, alternated with it; peak < 100 MiB.

/// Builds the capture from the H4 test captures' advertising events, one
/// event per millisecond (about 2 minutes), with ACL packets between them
/// as a phone's snoop log has, until it holds `reports` reports and about
/// `bytes` bytes.
func makeReplayCapture(from folder: String, reports: Int, bytes: Int) throws -> (data: [UInt8], reports: Int) {
    var events: [(packet: [UInt8], reports: Int)] = []
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".btsnoop") }.sorted()
    for name in names {
        guard let data = FileManager.default.contents(atPath: folder + "/" + name),
              let file = try? BtsnoopFile(bytes: Array(data)), file.datalink == .h4,
              let records = try? file.records() else { continue }
        for r in records where r.type == .event && r.received {
            if let n = try? AdvertisingReports.parse(HCIEvent(bytes: r.packet)).count, n > 0 {
                events.append(([H4Type.event.rawValue] + r.packet, n))
            }
        }
    }
    guard !events.isEmpty else { throw BenchError("no advertising events in the captures of \(folder)") }
    let eventBytes = events.reduce(0) { $0 + $1.packet.count + 24 } * reports / events.reduce(0) { $0 + $1.reports }
    // ACL payload per event that brings the file to about `bytes` (header 24 + H4 1 + ACL header 4).
    let aclPayload = max(0, (bytes - eventBytes) / max(1, reports) - 29)
    let acl: [UInt8] = [H4Type.acl.rawValue, 0x40, 0x20, UInt8(aclPayload & 0xFF), UInt8(aclPayload >> 8)]
        + [UInt8](repeating: 0xA5, count: aclPayload)
    var out = Array("btsnoop".utf8) + [0] + be32(1) + be32(1002)
    out.reserveCapacity(bytes + 1_000_000)
    var stamp: UInt64 = 0x00E0_3C59_D8F5_A000
    func record(_ packet: [UInt8], received: Bool) {
        out += be32(UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(received ? 1 : 0) + be32(0)
        out += be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xFFFF_FFFF))
        out += packet
    }
    var made = 0, i = 0
    while made < reports {
        let e = events[i % events.count]
        i += 1
        record(e.packet, received: true)
        made += e.reports
        if aclPayload > 0 { record(acl, received: i % 2 == 0) }
        stamp += 1000  // 1 ms
    }
    return (out, made)
}

func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

func runReplayBench(fprint: String, dir: String, captures: String) throws {
    let (capture, reports) = try makeReplayCapture(from: captures, reports: 124_000, bytes: 17_000_000)
    let path = dir + "/replay.btsnoop"
    try Data(capture).write(to: URL(fileURLWithPath: path))
    let env = benchEnvironment(dir)
    let tshark = "/usr/bin/tshark"
    let row = String(format: "btsnoop replay of %.1f MB, %d reports vs tshark -T fields", Double(capture.count) / 1e6, reports)
    guard FileManager.default.isExecutableFile(atPath: tshark) else {
        Goals.shared.check(row, "no reference", met: false, goal: "tshark installed (apt install tshark)")
        return
    }
    func replay(_ i: Int, peak: Bool) throws -> Measured {
        let m = try runMeasured(fprint, ["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--fast", "--duration", "all",
                                         "--ble-source", "btsnoop:" + path, "--db", dir + "/replay-\(i).sqlite"],
                                environment: env, samplePeak: peak)
        guard m.status == 0, m.stderr.contains("BLE \(reports),") else {
            throw BenchError("replay: fprint measure exited \(m.status) or stored another count: \(m.stderr.suffix(400))")
        }
        return m
    }
    // tshark's field extraction of the same capture (address and RSSI of every report).
    let (runs, references, load) = try alternated(3, { try replay($0, peak: false).seconds }, reference: { _ in
        let r = try runMeasured(tshark, ["-r", path, "-T", "fields", "-e", "bthci_evt.bd_addr", "-e", "bthci_evt.rssi"],
                                environment: env, samplePeak: false)
        guard r.status == 0 else { throw BenchError("tshark failed on the capture: \(r.stderr.suffix(300))") }
        return r.seconds
    })
    // Peak memory from a 4th run, sampled: the sampler's wake-ups would slow the timed ones.
    let peakMiB = Double(try replay(3, peak: true).peakKB) / 1024
    Goals.shared.ratio(row, figure: median(runs), secondsLine(runs), reference: median(references),
                       "tshark " + secondsLine(references), goal: .faster(10),
                       extra: (peakMiB < 100, String(format: "peak %.0f MiB (goal < 100 MiB)", peakMiB)), load: load)
}
