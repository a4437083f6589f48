import Foundation
import Testing

/// A route over two floors (`--then … --via stairs`): `walk` records both
/// floors' parts, each document on the map it was taken on, in one session
/// numbered on; `scenarios --map` lists it under both maps and `map show`
/// gives this floor's part beside the whole length.
@Suite struct StairsWalkCLITests {
    static let plan = OwnBuildingGuideTests.examples.appendingPathComponent("lab-plan.svg").path

    /// LAB0 and LAB1, the example plan on two floors, each with the example beacons, and a stairs route.
    static func building() async throws -> FprintRunner {
        let fp = try FprintRunner()
        for (map, floor) in [("LAB0", "0"), ("LAB1", "1")] {
            for args in [["map", "add", map, "--image", plan, "--floor", floor, "--calibrate", "100,100 1100,100 25m",
                          "--outline", "40,40 1160,40 1160,660 40,660"],
                         ["beacons", "import", OwnBuildingGuideTests.examples.appendingPathComponent("lab-beacons.csv").path, "--map", map]]
            {
                let r = try await fp.run(args)
                #expect(r.status == 0, "fprint \(args.joined(separator: " ")): \(r.stderr)")
            }
        }
        // 900 units = 22.5 m on LAB0, then 900 + 190 = 27.25 m on LAB1
        let added = try await fp.run(["scenario", "add", "up", "--map", "LAB0", "--points", "150,360 1050,360",
                                      "--then", "LAB1:1050,360 150,360 150,550", "--via", "stairs"])
        #expect(added.status == 0, "\(added.stderr)")
        return fp
    }

    @Test func aStairsRouteIsWalkedOnBothFloors() async throws {
        let fp = try await Self.building()
        let walk = try await fp.run(["walk", "--scenario", "up", "--simulate", "--fast", "--json"])
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.stderr.contains("LAB0 → LAB1 (stairs)"), "\(walk.stderr)")
        #expect(walk.stderr.contains("part 2 of 2: take the stairs to LAB1"), "\(walk.stderr)")
        let docs = try walk.lines.map(fp.json)
        let levels = docs.map { $0["level"] as? String ?? "" }
        // 22.5 m at 1 m/s: 11 windows of 2 s (the last 0.5 s dropped); 27.25 m: 14 (the last 1.25 s kept)
        #expect(levels.filter { $0 == "LAB0" }.count == 11, "\(levels)")
        #expect(levels.filter { $0 == "LAB1" }.count == 14, "\(levels)")
        #expect(levels == levels.sorted(), "LAB0's part first")
        #expect(docs.map { $0["seq"] as? Int ?? 0 } == Array(1...docs.count))
        #expect(Set(docs.compactMap { $0["sessionId"] as? String }).count == 1)
        // Each part on its own floor: LAB1's documents end at the route's last waypoint's side (x ≈ 150)
        let lastOnOne = try #require(docs.last)
        #expect((lastOnOne["x"] as? Int).map { $0 < 200 } == true, "\(lastOnOne["x"] ?? "?")")
        let heardOnOne = docs.filter { $0["level"] as? String == "LAB1" }.allSatisfy {
            (($0["providers"] as? [String: Any])?["ble"] as? [String: Any])?["source"] as? String == "simulated:beacons/LAB1.json"
        }
        #expect(heardOnOne, "LAB1's part is simulated from LAB1's beacons")
        let listed = try await fp.run(["list", "--map", "LAB1", "--json"])
        #expect(listed.lines.count == 14)
    }

    @Test func aStairsRouteIsListedUnderEveryMapItVisits() async throws {
        let fp = try await Self.building()
        for map in ["LAB0", "LAB1"] {
            let listed = try await fp.run(["scenarios", "--map", map, "--json"])
            #expect(listed.status == 0 && listed.stdout.contains("\"up\""), "\(map): \(listed.stdout)")
        }
        let show = try await fp.run(["map", "show", "LAB1"])
        #expect(show.stdout.contains("up (27.25 m here, 49.75 m in all: LAB0 → LAB1)"), "\(show.stdout)")
        let json = try fp.json(try await fp.run(["map", "show", "LAB0", "--json"]).stdout)
        let route = try #require((json["routes"] as? [[String: Any]])?.first)
        #expect(route["lengthMeters"] as? Double == 22.5 && route["wholeLengthMeters"] as? Double == 49.75, "\(route)")
    }
}
