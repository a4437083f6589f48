import Foundation
import Testing

/// A J1NP document whose one probe went out by wlan0 on SSID "lab" and downloaded `mbit` Mbit/s, at 10:`minute`.
func probedDoc(minute: Int, mbit: Double, loss: Double = 0.5) -> [String: Any] {
    let at = String(format: "2026-11-01T10:%02d:00.000Z", minute)
    let phases: [[String: Any]] = [
        ["phase": "down", "status": "ok", "statusCode": 0, "bitsPerSecond": mbit * 1e6],
        ["phase": "up", "status": "unreachable", "statusCode": 1, "reason": "connection refused"],
        ["phase": "udp", "status": "ok", "statusCode": 0, "lossUpPercent": loss, "lossDownPercent": 0.1,
         "jitterUpMs": 2.5, "jitterDownMs": 1.5, "rttMs": ["min": 20.0, "avg": 25.0, "max": 40.0, "median": 24.0]],
    ]
    return ["x": 100, "y": 200, "level": "J1NP", "mode": "static", "type": "scan", "createdAt": at, "wifiScans": [], "bleScans": [],
            "networkProbes": [["server": "gw:5985", "startedAt": at, "endedAt": at, "phases": phases,
                               "interface": ["name": "wlan0", "type": "wifi", "ssid": "lab"]]]]
}

@Suite struct AlertsCLITests {
    func ownConfig(_ fp: FprintRunner) -> String { fp.home.appendingPathComponent("config/fprint/app-config.json").path }

    @Test func rulesAreAddedListedAndRemovedInTheOwnAppConfig() async throws {
        let fp = try FprintRunner()
        var r = try await fp.run(["alerts", "add", "slow-down", "download", "<", "5", "Mbit/s", "--map", "J1NP", "--hold", "10min"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("added slow-down: download < 5 Mbit/s on map J1NP for 10 min"), "\(r.stderr)")
        r = try await fp.run(["alerts", "add", "lossy", "loss >= 2 %", "--link", "lab"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await fp.run(["alerts", "list"])
        #expect(r.lines == ["RULE       WHEN", "slow-down  download < 5 Mbit/s on map J1NP for 10 min", "lossy      loss >= 2 % on link lab"])
        let stored = try fp.json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: ownConfig(fp))), as: UTF8.self))
        let rules = (stored["alerts"] as? [String: Any])?["rules"] as? [[String: Any]]
        #expect(rules?.first?["limit"] as? String == "5 Mbit/s")
        #expect(rules?.first?["hold"] as? String == "10min")
        r = try await fp.run(["alerts", "remove", "slow-down"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try await fp.run(["alerts", "list", "--json"])
        #expect(r.lines == [#"{"compare":">=","figure":"loss","id":"lossy","limit":"2 %","link":"lab"}"#])
        r = try await fp.run(["alerts", "remove", "nothing-such"])
        #expect(r.status == 66)
    }

    @Test(arguments: [
        (["alerts", "add", "a", "speed < 5 Mbit/s"], 64,
         "error: \"speed\" is not a figure: use download, upload, rtt, loss, jitter, rssi, silence, coverage"),
        (["alerts", "add", "a", "download < 5"], 64, "error: download's limit: \"5\" has no unit: write it with Mbit/s (or kbit/s, Gbit/s, bit/s)"),
        (["alerts", "add", "a", "rtt > 5 %"], 64, "error: rtt's limit: \"%\" is not a unit here: write ms"),
        (["alerts", "add", "a", "rssi < -80 dBm", "--map", "J1NP"], 64, "error: rssi is a beacon's figure: give the beacon (--beacon MAC)"),
        (["alerts", "add", "a", "download < 5 Mbit/s", "--hold", "ten"], 64, "error: --hold: expected a number and its unit s, min, h or d, found \"ten\""),
        (["alerts", "add", "a", "download < 5 Mbit/s", "--map", "NOPE"], 64, "error: --map NOPE: no such map in"),
        (["alerts", "webhook", "ftp://hooks.example.org/x"], 64,
         "error: the webhook must be an http:// or https:// URL, found \"ftp://hooks.example.org/x\""),
    ] as [([String], Int32, String)])
    func badInputIsOneLineAndChangesNothing(args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["alerts", "add", "keep", "jitter > 30 ms"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: ownConfig(fp)))
        let r = try await fp.run(args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ownConfig(fp))) == before)
    }

    @Test func aBadRuleInTheConfigIsNamedByPath() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["alerts", "add", "keep", "jitter > 30 ms"]).status == 0)
        let path = ownConfig(fp)
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"30 ms\"", with: "\"30\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try fp.createEmptyDatabase()
        let r = try await fp.run(["alerts"])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(path): $.alerts.rules[0].limit: \"30\" has no unit: write it with ms\n")
    }

    @Test func activeAlertsExitThreeAndClearedOnesAreHistory() async throws {
        var fp = try FprintRunner()
        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T10:30:00.000Z"
        #expect(try await fp.run(["alerts", "add", "slow", "download < 5 Mbit/s", "--map", "J1NP", "--hold", "5min"]).status == 0)
        #expect(try await fp.run(["alerts", "add", "lossy", "loss > 1 %", "--link", "lab"]).status == 0)
        try await importDocuments(fp, [("p0", probedDoc(minute: 0, mbit: 20)), ("p1", probedDoc(minute: 5, mbit: 3)),
                                       ("p2", probedDoc(minute: 10, mbit: 2.5, loss: 3))])
        var r = try await fp.run(["alerts", "--json"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr == "error: 2 alerts active\n")
        let active = try r.lines.map { try fp.json($0) }
        // Raised at the same time, so in the order of their names.
        #expect(active.map { $0["rule"] as? String } == ["lossy", "slow"])
        let slow = active.last
        #expect(slow?["since"] as? String == "2026-11-01T10:10:00.000Z")  // 10:05 + the 5 min hold
        #expect(slow?["worst"] as? Double == 2.5)
        #expect(slow?["unit"] as? String == "Mbit/s")
        #expect((slow?["values"] as? [[String: Any]])?.map { $0["document"] as? String } == ["p1", "p2"])
        #expect(active.first?["subject"] as? String == "link lab")
        #expect(active.first?["worst"] as? Double == 3)

        try await importDocuments(fp, [("p3", probedDoc(minute: 20, mbit: 30))])
        r = try await fp.run(["alerts"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == ["RULE  SUBJECT  SINCE  UNTIL  WORST  LIMIT"])
        r = try await fp.run(["alerts", "--history", "--json"])
        #expect(r.status == 0)
        let past = try r.lines.map { try fp.json($0) }
        #expect(past.map { $0["until"] as? String } == ["2026-11-01T10:20:00.000Z", "2026-11-01T10:20:00.000Z"])
        #expect(past.map { $0["active"] as? Bool } == [false, false])
    }
}
