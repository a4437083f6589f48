import FPCore
import FPHCI
import Foundation

// Live positioning benchmark (`fprint-bench --track-only --fprint PATH`, issue 15):
// a btsnoop capture of a surveyor walking the J3NP loop for 10 minutes among
// the 17 registry beacons of Config/beacons/J3NP.json (each advertising every
// 20 ms, log-distance levels with 4 dB shadowing: ~500,000 reports), replayed
// by the real binary as fast as it can into one position a second
// (`track --map J3NP --method beacons --ble-source btsnoop:… --fast --json`):
// reports/s over the whole process, median of 3 (issue 33: ≥ 400,000), and the
// peak memory of it and of the same walk 30 minutes long (< 150 MB for any length).

/// One LE Advertising Report event (H4) of an iBeacon at `address` heard at `rssi`.
func iBeaconEvent(address: [UInt8], rssi: Int8, measuredPower: Int8) -> [UInt8] {
    let data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15,
                         0xB9, 0x40, 0x7F, 0x30, 0xF5, 0xF8, 0x46, 0x6E, 0xAF, 0xF9, 0x25, 0x55, 0x6B, 0x57, 0xFE, 0x6D,
                         0x00, 0x01, 0x00, 0x35, UInt8(bitPattern: measuredPower)]
    let report: [UInt8] = [0x01, 0x03, 0x01] + address.reversed() + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    return [0x04, 0x3E, UInt8(report.count + 1), 0x02] + report
}

func makeTrackCapture(registryPath: String, scenariosPath: String, seconds: Int) throws -> (data: [UInt8], reports: Int) {
    guard let reg = FileManager.default.contents(atPath: registryPath), case .array(let items) = try CanonicalJSON.parse(reg) else {
        throw BenchError("\(registryPath): cannot read the registry")
    }
    var beacons: [(address: [UInt8], x: Double, y: Double, power: Double)] = []
    for item in items where !item.isNull {
        guard let mac = item["mac"]?.stringValue, let x = item["x"]?.doubleValue, let y = item["y"]?.doubleValue else { continue }
        let bytes = mac.split(separator: ":").compactMap { UInt8($0, radix: 16) }
        beacons.append((bytes, x, y, item["measuredPower"]?.doubleValue ?? -66))
    }
    guard let sc = FileManager.default.contents(atPath: scenariosPath),
          let loop = (try CanonicalJSON.parse(sc))["scenarios"]?.arrayValue?.first(where: { $0["scenarioID"] == "scenarioJ3NP1" }),
          let points = loop["points"]?.arrayValue?.compactMap({ p -> MapPoint? in
              guard let x = p["X"]?.doubleValue, let y = p["Y"]?.doubleValue else { return nil }
              return MapPoint(x: x, y: y)
          }), let route = Route(waypoints: points) else { throw BenchError("\(scenariosPath): no scenarioJ3NP1") }
    var rng = SeededRandom(seed: 15)
    var packets: [BtsnoopWriter.Packet] = []
    let metersPerUnit = 45.0 / 2250
    let start: Int64 = 1_795_000_000_000_000
    for ms in stride(from: 0, to: seconds * 1000, by: 20) {
        // 50 map units a second (1 m/s), round and round the loop.
        let here = route.point(atDistance: (Double(ms) * 0.05).truncatingRemainder(dividingBy: route.length))
        for (i, b) in beacons.enumerated() {
            let d = max(0.5, MapPoint(x: b.x, y: b.y).distance(to: here) * metersPerUnit)
            let rssi = (b.power - 22 * log10(d) + 4 * rng.nextGaussian()).rounded()
            guard rssi >= -100 else { continue }
            packets.append(.init(timestampMicros: start + Int64(ms) * 1000 + Int64(i * 1000 / beacons.count),
                                 h4: iBeaconEvent(address: b.address, rssi: Int8(rssi), measuredPower: Int8(b.power)), received: true))
        }
    }
    return (BtsnoopWriter.h4File(packets), packets.count)
}

func runTrackBench(fprint: String, dir: String) throws {
    let env = benchEnvironment(dir)
    // Issue 33's row: ≥ 400,000 reports/s over the 10-minute walk, and a peak
    // that does not grow with the capture (the same walk 30 minutes long).
    var peaks: [(minutes: Int, megabytes: Double)] = []
    var rate = 0.0
    for minutes in [10, 30] {
        let (capture, reports) = try makeTrackCapture(registryPath: "Config/beacons/J3NP.json",
                                                      scenariosPath: "Scenarios/scenarios.json", seconds: minutes * 60)
        let path = dir + "/track-\(minutes)min.btsnoop"
        try Data(capture).write(to: URL(fileURLWithPath: path))
        var runs: [Measured] = []
        for _ in 0..<(minutes == 10 ? 3 : 1) {
            let m = try runMeasured(fprint, ["track", "--map", "J3NP", "--method", "beacons", "--ble-source", "btsnoop:" + path,
                                             "--fast", "--json", "--config", "Config/app-config.json"], environment: env)
            let positions = m.stdout.split(separator: "\n").count - 1
            guard m.status == 0, m.stderr.contains("from \(reports) samples"), positions >= minutes * 59 else {
                throw BenchError("track: fprint track exited \(m.status) with \(positions) positions: \(m.stderr.suffix(400))")
            }
            runs.append(m)
        }
        try? FileManager.default.removeItem(atPath: path)
        print(String(format: "track: %.1f MB btsnoop, %d reports of a %d min walk → %d positions (fprint track --method beacons "
                     + "--fast, whole process): %@", Double(capture.count) / 1e6, reports, minutes, minutes * 60, mediansLine(runs)))
        if minutes == 10 { rate = Double(reports) / median(runs.map(\.seconds)) }
        peaks.append((minutes, median(runs.map { Double($0.peakKB) / 1000 })))
    }
    Goals.shared.check("`fprint track` replay of a 10-minute walk's capture", String(format: "%.0f reports/s", rate),
                       met: rate >= 400_000, goal: "≥ 400,000 reports/s")
    Goals.shared.check("`fprint track` replay, peak memory by capture length",
                       peaks.map { String(format: "%d min: %.0f MB", $0.minutes, $0.megabytes) }.joined(separator: ", "),
                       met: peaks.allSatisfy { $0.megabytes < 150 }, goal: "< 150 MB for any length")
}
