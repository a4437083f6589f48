import FPCore
import FPHCI
import Foundation

// Live positioning benchmark (`fprint-bench --track-only --fprint PATH`, issue 15):
// a btsnoop capture of a surveyor walking the J3NP loop for 10 minutes among
// the 17 registry beacons of Config/beacons/J3NP.json (each advertising every
// 20 ms, log-distance levels with 4 dB shadowing: ~500,000 reports), replayed
// by the real binary as fast as it can into one position a second
// (`track --map J3NP --method beacons --ble-source btsnoop:… --fast --json`):
// reports/s over the whole process, median of 3. Target ≥ 100,000 reports/s.

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
    let (capture, reports) = try makeTrackCapture(registryPath: "Config/beacons/J3NP.json", scenariosPath: "Scenarios/scenarios.json",
                                                  seconds: 600)
    let path = dir + "/track.btsnoop"
    try Data(capture).write(to: URL(fileURLWithPath: path))
    let env = benchEnvironment(dir)
    var runs: [Measured] = []
    for _ in 0..<3 {
        let m = try runMeasured(fprint, ["track", "--map", "J3NP", "--method", "beacons", "--ble-source", "btsnoop:" + path,
                                         "--fast", "--json", "--config", "Config/app-config.json"], environment: env)
        let positions = m.stdout.split(separator: "\n").count - 1
        guard m.status == 0, m.stderr.contains("from \(reports) samples"), positions >= 590 else {
            throw BenchError("track: fprint track exited \(m.status) with \(positions) positions: \(m.stderr.suffix(400))")
        }
        runs.append(m)
    }
    let seconds = runs.map(\.seconds).sorted()[1], cpu = runs.map(\.cpuSeconds).sorted()[1]
    print(String(format: "track: %.1f MB btsnoop, %d reports of a 10 min walk → %d positions (fprint track --method beacons --fast, "
                 + "whole process): median %.2f s (CPU %.2f s), %.0f reports/s (target ≥ 100,000)",
                 Double(capture.count) / 1e6, reports, 600, seconds, cpu, Double(reports) / seconds))
}
