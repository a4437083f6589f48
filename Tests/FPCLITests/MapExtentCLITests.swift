import Foundation
import Testing

/// Points off the plan are refused before anything is recorded (issue 12:
/// `--x 99999` once stored a document that eval then put 2 km away).
@Suite("Map extents")
struct MapExtentCLITests {
    @Test(arguments: [(["--x", "99999", "--y", "1"], "(99999, 1)"), (["--x", "1", "--y", "3000.5"], "(1, 3000.5)")])
    func aPointOutsideTheMapIsRefusedAndNothingIsStored(point: [String], shown: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["measure", "--map", "J1NP", "--simulate", "--fast"] + point)
        #expect(r.status == 64)
        #expect(r.stderr == "error: \(shown) is outside map J1NP: x 0–2500, y 0–3000 map units (50 × 60 m); --force measures there all the same\n")
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: fp.db))
    }

    @Test func theCornersAreOnTheMapAndForceStoresAPointOffIt() async throws {
        let fp = try FprintRunner()
        let corner = try await fp.run(["measure", "--map", "J1NP", "--x", "2500", "--y", "3000", "--simulate", "--fast",
                                       "--duration", "5", "--json"])
        #expect(corner.status == 0, "\(corner.stderr)")
        let forced = try await fp.run(["measure", "--map", "J1NP", "--x", "99999", "--y", "1", "--simulate", "--fast",
                                       "--duration", "5", "--force", "--json"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try fp.json(try #require(forced.lines.first))["x"] as? Int == 99999)
    }

    @Test func aScenarioWithAWaypointOffTheMapIsRefusedUnlessForced() async throws {
        let fp = try FprintRunner()
        let using = try fp.configWithScenarios(
            #"{"scenarios": [{"scenarioID": "off", "name": "off the plan", "mapID": "J1NP", "points": [{"X": 400, "Y": 800}, {"X": 400, "Y": 1200}, {"X": 2600, "Y": 1200}]}]}"#)
        let refused = try await fp.run(["walk", "--scenario", "off", "--simulate", "--fast"] + using)
        #expect(refused.status == 65)
        #expect(refused.stderr == "error: scenario off, waypoint 3: (2600, 1200) is outside map J1NP: x 0–2500, y 0–3000 map units (50 × 60 m); --force walks it all the same\n")
        #expect(!FileManager.default.fileExists(atPath: fp.db))
        let forced = try await fp.run(["walk", "--scenario", "off", "--simulate", "--fast", "--force"] + using)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(!forced.lines.isEmpty)
    }

    @Test func mapsShowsTheExtent() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["maps", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let maps = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(maps.allSatisfy { ($0["extent"] as? [String: Any])?["width"] as? Int == 2500 })
    }
}
