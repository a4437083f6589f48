import Foundation
import Testing

@Suite struct LocateCLITests {
    @Test func locatesAStoredMeasurementByRadiomapAndBeacons() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "3"]).status == 0)
        let m = try await fp.run(["measure", "--map", "J3NP", "--x", "1000", "--y", "1200", "--simulate", "--fast",
                            "--duration", "5", "--seed", "9"])
        let id = try #require(m.lines.first)
        let r = try await fp.run(["locate", String(id.prefix(8)), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["id"] as? String == id)
        let truth = try #require(out["truth"] as? [String: Any])
        #expect(truth["x"] as? Int == 1000 && truth["y"] as? Int == 1200)
        let wknn = try #require(out["wknn"] as? [String: Any])
        // Three neighbours from the walk, never the measurement itself.
        let neighbours = try #require(wknn["neighbours"] as? [[String: Any]])
        #expect(neighbours.count == 3 && !neighbours.contains { $0["id"] as? String == id })
        // The shipped J3NP registry (17 beacons) places it on the right part of the floor: one 5 s
        // simulated measurement with 4 dB shadowing is off by some metres (15 m with this seed);
        // 20 m is under half the floor's 45 m width, so a wrong sign or registry still fails.
        let beacons = try #require(out["beacons"] as? [String: Any])
        #expect((beacons["used"] as? [Any])?.count == 6)
        #expect((beacons["error"] as? Double ?? 99) < 20)
    }

    @Test func locatesAFileWithoutPositionAndSmoothsAWalk() async throws {
        let fp = try FprintRunner()
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "3"])
        #expect(walk.status == 0)
        let m = try await fp.run(["measure", "--map", "J3NP", "--x", "1000", "--y", "1200", "--simulate", "--fast",
                            "--duration", "5", "--seed", "9", "--json"])
        var doc = try fp.json(m.stdout)
        doc["x"] = nil
        doc["y"] = nil
        doc["_id"] = nil
        let file = fp.home.appendingPathComponent("query.json")
        try JSONSerialization.data(withJSONObject: doc).write(to: file)
        let r = try await fp.run(["locate", "--file", file.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["truth"] is NSNull)
        #expect(out["wknn"] as? [String: Any] != nil && out["beacons"] as? [String: Any] != nil)

        let first = try #require(walk.lines.first)
        let shown = try fp.json(try await fp.run(["show", first, "--json"]).stdout)
        let session = try #require(shown["sessionId"] as? String)
        let track = try await fp.run(["locate", "--session", session, "--json"])
        #expect(track.status == 0, "\(track.stderr)")
        let rows = try track.lines.map(fp.json)
        #expect(rows.count == walk.lines.count)
        #expect(rows.compactMap { $0["seq"] as? Int } == Array(1...rows.count))
        // The first smoothed point is the first estimate (x̂₀ = z₀); all are present.
        #expect(rows.allSatisfy { $0["smoothed"] as? [String: Any] != nil })
    }

    @Test(arguments: [
        (["locate"], Int32(64), "name exactly one of"),
        (["locate", "nope"], Int32(66), "error: no document with id nope"),
        (["locate", "--session", "nope"], Int32(66), "error: no documents of walk session nope"),
    ])
    func badInput(args: [String], status: Int32, message: String) async throws {
        try await FprintRunner.expectRefusal(args, status: status, message: message)
    }

    @Test func badRegistryIsNamed() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast"]).status == 0)
        let reg = fp.home.appendingPathComponent("beacons.json")
        try #"[null, {"mac": "AA:BB:CC:DD:EE:FF", "x": 1, "y": 2, "measuredPower": 20}]"#.write(to: reg, atomically: true, encoding: .utf8)
        let line = try #require(try await fp.run(["list", "--json", "--limit", "1"]).lines.first)
        let id = try #require(try fp.json(line)["id"] as? String)
        let r = try await fp.run(["locate", id, "--beacons", reg.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(reg.path): $[1].measuredPower: expected dBm between −120 and 0\n")
    }
}
