import Foundation
import Testing

/// Stored network probes for the plot and export tests: `networkProbes[]`
/// elements shaped as `fprint probe --json` writes them (each server phase
/// with its signed result beside the copy of its figures), placed and timed.
enum ProbeResultsFixture {
    /// A server phase: the figures beside a signed result holding the same.
    static func signedPhase(_ name: String, _ figures: [String: Any]) -> [String: Any] {
        var result: [String: Any] = ["phase": name, "user": "alice", "client": "10.77.0.2", "at": "2026-11-01T10:00:00.000Z",
                                     "nonce": "5f3a"]
        result.merge(figures) { a, _ in a }
        var phase: [String: Any] = ["phase": name, "status": "ok", "statusCode": 0,
                                    "signed": ["alg": "ed25519", "key": "test-key", "result": result, "signature": "c2lnbmF0dXJl"]]
        phase.merge(figures) { a, _ in a }
        return phase
    }

    static func failedPhase(_ name: String, _ status: String, code: Int, reason: String) -> [String: Any] {
        ["phase": name, "status": status, "statusCode": code, "reason": reason]
    }

    /// One probe: down/up in Mbit/s (nil: the phase failed), the UDP train's figures, where and when.
    static func probe(down: Double?, up: Double = 5, rtt: Double = 20, lossUp: Double = 0, lossDown: Double = 0,
                      jitterUp: Double = 1, jitterDown: Double = 3, at startedAt: String,
                      from start: (Int, Int)? = nil, to end: (Int, Int)? = nil, extra: [String: Any] = [:]) -> [String: Any] {
        var phases: [[String: Any]] = []
        if let down {
            phases.append(signedPhase("down", ["bytes": 1_000_000, "seconds": 0.8, "bitsPerSecond": Int(down * 1e6)]))
        } else {
            phases.append(failedPhase("down", "timeout", code: 5, reason: "no data for 5 s"))
        }
        phases.append(signedPhase("up", ["bytes": 500_000, "seconds": 0.8, "bitsPerSecond": Int(up * 1e6)]))
        phases.append(signedPhase("udp", ["datagrams": 200, "sent": 200, "receivedByServer": 200, "echoesReceived": 200,
                                          "spacingMs": 20, "lossUpPercent": lossUp, "lossDownPercent": lossDown,
                                          "jitterUpMs": jitterUp, "jitterDownMs": jitterDown,
                                          "rttMs": ["min": rtt - 2, "avg": rtt + 1, "max": rtt + 9, "median": rtt, "count": 200]]))
        phases.append(["phase": "ping", "status": "unavailable", "statusCode": 7, "reason": "ping_group_range excludes this user"])
        var p: [String: Any] = ["server": "10.78.1.1:5985", "startedAt": startedAt, "endedAt": startedAt,
                                "interface": ["name": "wlan0", "type": "wifi", "ssid": "lab", "bssid": "02:00:00:00:01:00"],
                                "phases": phases]
        if let start { p["positionStart"] = ["x": start.0, "y": start.1] }
        if let last = end ?? start { p["positionEnd"] = ["x": last.0, "y": last.1] }
        p.merge(extra) { _, b in b }
        return p
    }

    /// A static measurement document on `map` at (x, y) carrying `probes`.
    static func document(_ map: String, _ x: Int, _ y: Int, created: String, probes: [[String: Any]]) -> [String: Any] {
        ["x": x, "y": y, "level": map, "mode": "static", "type": "scan", "createdAt": created,
         "wifiScans": [["mac": "02:00:00:00:00:0A", "ssid": "t", "rssi": -60, "time": 100]], "bleScans": [],
         "networkProbes": probes]
    }

    /// The repository's config with J1NP given an outline (a rectangle inside its extent), written beside the database.
    static func configWithOutline(_ fp: FprintRunner) throws -> [String] {
        let root = FprintRunner.repositoryRoot
        let shipped = try Data(contentsOf: root.appendingPathComponent("Config/app-config.json"))
        var config = try #require(JSONSerialization.jsonObject(with: shipped) as? [String: Any])
        var maps = try #require(config["maps"] as? [[String: Any]])
        maps[0]["outline"] = [["x": 100, "y": 100], ["x": 2300, "y": 100], ["x": 2300, "y": 2900], ["x": 100, "y": 2900]]
        config["maps"] = maps
        let path = fp.home.appendingPathComponent("app-config.json")
        try JSONSerialization.data(withJSONObject: config).write(to: path)
        return ["--config", path.path]
    }
}
