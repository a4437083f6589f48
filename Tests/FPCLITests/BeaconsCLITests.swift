import FPCore
import Foundation
import Testing

/// `fprint beacons`: the registry, and `--health` from imported measurements.
@Suite struct BeaconsCLITests {
    let config = ["--config", FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path]

    /// Two measurements, nine and a half days old and new, and a registry of three
    /// beacons: one heard only then (with a low TLM battery), one
    /// heard now, one never.
    func survey(_ fp: FprintRunner) async throws -> String {
        let now = Date()
        func doc(_ id: String, _ at: Date, _ scans: [[String: Any]]) -> [String: Any] {
            let time = ISOTime.string(at)
            return ["_id": id, "type": "scan", "level": "J3NP", "x": 100, "y": 200, "createdAt": time, "startTime": time,
                    "bleScans": scans]
        }
        let docs = [
            doc("old", now.addingTimeInterval(-9.5 * 86_400), [
                ["address": "aa:00:00:00:00:01", "rssi": -70, "time": 0],
                ["address": "AA:00:00:00:00:01", "rssi": -72, "time": 500,
                 "beacon": ["type": "eddystone-tlm", "batteryMilliVolts": 2400, "temperature": 21.5]],
            ]),
            doc("new", now, [["address": "AA:00:00:00:00:02", "rssi": -60, "time": 0]]),
        ]
        let lines = try docs.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let file = fp.home.appendingPathComponent("survey.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        #expect(try await fp.run(["import", file.path]).status == 0)
        let registry = fp.home.appendingPathComponent("beacons.json")
        try #"[null, {"mac": "AA:00:00:00:00:01", "x": 10, "y": 20}, {"mac": "AA:00:00:00:00:02", "x": 30, "y": 40}, {"mac": "AA:00:00:00:00:03", "x": 50, "y": 60}]"#
            .write(to: registry, atomically: true, encoding: .utf8)
        return registry.path
    }

    @Test func healthNamesSilentNeverHeardAndLowBatteryBeacons() async throws {
        let fp = try FprintRunner()
        let registry = try await survey(fp)
        let r = try await fp.run(["beacons", "--health", "--map", "J3NP", "--beacons", registry, "--json"] + config)
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map { try fp.json($0) }
        #expect(rows.map { $0["mac"] as? String } == ["AA:00:00:00:00:01", "AA:00:00:00:00:02", "AA:00:00:00:00:03"])
        let kinds = rows.map { ($0["alerts"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String } }
        #expect(kinds == [["silent", "low-battery"], [], ["never-heard"]])
        #expect(rows[0]["batteryMilliVolts"] as? Int == 2400 && rows[0]["temperature"] as? Double == 21.5)
        #expect(rows[0]["reports"] as? Int == 2 && rows[0]["medianRssi"] as? Double == -71)
        let days = try #require((rows[0]["alerts"] as? [[String: Any]])?.first?["days"] as? Double)
        #expect(days >= 9.4 && days < 9.9)
        #expect(rows[2]["lastHeard"] is NSNull)

        let table = try await fp.run(["beacons", "--health", "--map", "J3NP", "--beacons", registry] + config)
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.lines.count == 4 && table.lines[3].contains("never heard"), "\(table.stdout)")
        #expect(table.lines[1].contains("silent for 9 days, battery 2400 mV"), "\(table.stdout)")
        #expect(table.stderr.contains("3 beacons, 2 with alerts"))
    }

    @Test func failOnAlertExitsThreeForCron() async throws {
        let fp = try FprintRunner()
        let registry = try await survey(fp)
        let alerting = try await fp.run(["beacons", "--map", "J3NP", "--beacons", registry, "--fail-on-alert"] + config)
        #expect(alerting.status == 3, "\(alerting.stderr)")
        #expect(alerting.stderr.contains("error: 2 beacons with alerts"))
        // Limits that nothing crosses but the beacon never heard.
        let lenient = try await fp.run(["beacons", "--map", "J3NP", "--beacons", registry, "--fail-on-alert",
                                        "--silent-days", "30", "--battery-below", "2000"] + config)
        #expect(lenient.status == 3 && lenient.stderr.contains("1 beacon with alerts"), "\(lenient.stderr)")
    }

    @Test func theShippedRegistryIsListedAndBadArgumentsAreNamed() async throws {
        let fp = try FprintRunner()
        let list = try await fp.run(["beacons", "--json"] + config)
        #expect(list.status == 0, "\(list.stderr)")
        let rows = try list.lines.map { try fp.json($0) }
        #expect(rows.contains { $0["map"] as? String == "J3NP" && $0["mac"] as? String == "C5:D5:21:51:D7:90" })

        let noMap = try await fp.run(["beacons", "--beacons", "x.json"] + config)
        #expect(noMap.status == 64 && noMap.stderr.contains("--beacons needs --map"), "\(noMap.stderr)")
        let unknown = try await fp.run(["beacons", "--map", "NOPE"] + config)
        #expect(unknown.status == 66 && unknown.stderr.contains("no map NOPE"), "\(unknown.stderr)")
        let broken = fp.home.appendingPathComponent("broken.json")
        try "{not json".write(to: broken, atomically: true, encoding: .utf8)
        let bad = try await fp.run(["beacons", "--map", "J3NP", "--beacons", broken.path] + config)
        #expect(bad.status == 65 && bad.stderr.contains("broken.json: cannot read the beacon registry"), "\(bad.stderr)")
    }
}
