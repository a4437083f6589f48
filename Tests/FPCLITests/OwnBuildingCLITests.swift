import Foundation
import Testing

/// Your own building (issue 31): a map from a picture that is not shipped, its
/// scale from two points, an outline, routes on it, and every bad input
/// refused with one line and nothing changed.
@Suite struct OwnBuildingCLITests {
    /// A 1200 × 700 px SVG floor plan: one room with a corridor.
    static let planSVG = """
        <svg xmlns="http://www.w3.org/2000/svg" width="1200" height="700" viewBox="0 0 1200 700">
          <rect x="0" y="0" width="1200" height="700" fill="#ffffff"/>
          <rect x="40" y="40" width="1120" height="620" fill="none" stroke="#000000" stroke-width="8"/>
          <line x1="40" y1="350" x2="700" y2="350" stroke="#000000" stroke-width="4"/>
        </svg>
        """

    func plan(_ fp: FprintRunner, _ name: String = "plan.svg", _ text: String = Self.planSVG) throws -> String {
        let path = fp.home.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    var ownConfig: (FprintRunner) -> String { { $0.home.appendingPathComponent("config/fprint/app-config.json").path } }

    @Test func aMapFromAPictureWorksInEveryCommand() async throws {
        let fp = try FprintRunner()
        let picture = try plan(fp)
        // 1000 px between the two points are 25 m: 0.025 m a pixel, the plan 30 × 17.5 m.
        let add = try await fp.run(["map", "add", "LAB1", "--image", picture, "--floor", "1",
                                    "--calibrate", "100,100 1100,100 25m", "--outline", "40,40 1160,40 1160,660 40,660"])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("added map LAB1") && add.stdout.contains("30.0 × 17.5 m"), "\(add.stdout)")
        // Made once, from the shipped config, and said so.
        #expect(add.stderr.contains("made your own app config") && add.stderr.contains("3 simulated environments"), "\(add.stderr)")
        let maps = try await fp.run(["maps", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(maps.stdout.utf8)) as? [[String: Any]])
        #expect(list.compactMap { $0["id"] as? String } == ["J1NP", "J2NP", "J3NP", "LAB1"])
        // The copy stands alone: the picture is beside it, the shipped scenarios and environments came along.
        let home = fp.home.appendingPathComponent("config/fprint")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("plans/LAB1.svg").path))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("environments/J1NP.json").path))
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("beacons/J3NP.json").path))
        let scenarios = try await fp.run(["scenarios"])
        #expect(scenarios.status == 0 && scenarios.stdout.contains("scenarioJ2J3"), "\(scenarios.stderr)")
        let whereIs = try await fp.run(["config", "where"])
        #expect(whereIs.stdout.contains("your own app config") && whereIs.stdout.contains(ownConfig(fp)), "\(whereIs.stdout)")

        // A point off the plan is refused with the plan's size.
        let outside = try await fp.run(["measure", "--map", "LAB1", "--x", "1300", "--y", "300", "--simulate", "--fast"])
        #expect(outside.status == 64 && outside.stderr.contains("outside map LAB1") && outside.stderr.contains("30 × 17.5 m"),
                "\(outside.stderr)")

        // A route on it, its length in metres.
        let route = try await fp.run(["scenario", "add", "lab-loop", "--map", "LAB1", "--points", "100,100 1100,100 1100,600",
                                      "--name", "Lab loop", "--json"])
        #expect(route.status == 0, "\(route.stderr)")
        let added = try JSONSerialization.jsonObject(with: Data(route.stdout.utf8)) as? [String: Any]
        #expect(added?["lengthMeters"] as? Double == 37.5 && added?["mapID"] as? String == "LAB1", "\(route.stdout)")
        let listed = try await fp.run(["scenarios", "--map", "LAB1"])
        #expect(listed.stdout.contains("lab-loop") && listed.stdout.contains("37.5"), "\(listed.stdout)")

        // Changing it: a new scale, the outline removed; a map a scenario walks on cannot go.
        let edit = try await fp.run(["map", "edit", "LAB1", "--width-m", "60", "--outline", "none"])
        #expect(edit.status == 0 && edit.stdout.contains("60.0 × 35.0 m") && edit.stdout.contains("no outline"), "\(edit.stdout)\(edit.stderr)")
        let refused = try await fp.run(["map", "remove", "LAB1"])
        #expect(refused.status == 64 && refused.stderr.contains("lab-loop walks on map LAB1"), "\(refused.stderr)")
        #expect(try await fp.run(["scenario", "remove", "lab-loop"]).status == 0)
        let removed = try await fp.run(["map", "remove", "LAB1"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("plans/LAB1.svg").path))
        let after = try await fp.run(["maps"])
        #expect(!after.stdout.contains("LAB1"))
    }

    /// Each bad input: one line, its exit code, and the config as it was.
    @Test(arguments: [
        (["map", "add", "LAB1", "--image", "missing.png", "--width-m", "20"], Int32(66), "missing.png: no such file"),
        (["map", "add", "LAB1", "--image", "notes.txt", "--width-m", "20"], 65, "not a PNG, JPEG or SVG picture"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--calibrate", "100,100 100,100 5m"], 64, "the two points are the same"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--calibrate", "100,100 1100,100 0m"], 64, "is not a distance in metres above 0"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--calibrate", "100,100 1100,100"], 64, "expected \"x1,y1 x2,y2 DISTANCEm\""),
        (["map", "add", "LAB1", "--image", "plan.svg", "--calibrate", "100,100 1100,100 90km"], 64, "is not a distance in metres"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "0.01"], 64, "the scale makes the plan"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "900000"], 64, "the scale makes the plan"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--calibrate", "100,100 5000,100 25m"], 64, "lies outside the picture (1200 × 700 px)"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "30", "--outline", "0,0 10,0"], 64, "at least 3 corners"),
        (["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "30", "--outline", "0,0 10,0 10;10"], 64, "point 3 \"10\""),
        (["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "30", "--outline", "0,0 1300,0 10,10"], 64, "corner 2 (1300,0) lies outside"),
        (["map", "add", "LAB1", "--image", "plan.svg"], 64, "a new map needs a scale"),
        (["map", "add", "../evil", "--image", "plan.svg", "--width-m", "30"], 64, "cannot be a map id"),
        (["map", "add", "J1NP", "--image", "plan.svg", "--width-m", "30"], 64, "map J1NP is already in"),
        (["map", "edit", "NOPE", "--floor", "2"], 66, "no map NOPE"),
        (["scenario", "add", "s", "--map", "J1NP", "--points", "100,100 99999,100"], 64, "waypoint 2: (99999, 100) is outside map J1NP"),
        (["scenario", "add", "s", "--map", "NOPE", "--points", "1,1 2,2"], 66, "unknown map 'NOPE'"),
        (["scenario", "add", "scenarioJ1NP1", "--map", "J1NP", "--points", "100,100 200,100"], 64, "scenario scenarioJ1NP1 is already in"),
        (["scenario", "add", "s", "--map", "J1NP", "--points", "100,100"], 64, "at least 2 waypoints"),
    ] as [([String], Int32, String)])
    func badInputChangesNothing(args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        _ = try plan(fp)
        _ = try plan(fp, "notes.txt", "just words")
        // An existing own config, so "nothing changed" can be checked byte for byte.
        #expect(try await fp.run(["map", "edit", "J1NP", "--location", "here"]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: ownConfig(fp)))
        let scenariosPath = fp.home.appendingPathComponent("config/fprint/scenarios.json").path
        let scenariosBefore = try Data(contentsOf: URL(fileURLWithPath: scenariosPath))
        let r = try await fp.run(args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stderr.lowercased().split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: ownConfig(fp))) == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scenariosPath)) == scenariosBefore)
        let plans = fp.home.appendingPathComponent("config/fprint/plans").path
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: plans)) ?? []).isEmpty)
    }

    /// --config names another app config: it stays in force, and the change goes to your own, saying so.
    @Test func anotherConfigInForceIsSaid() async throws {
        let fp = try FprintRunner()
        _ = try plan(fp)
        let shipped = FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path
        let r = try await fp.run(["map", "add", "LAB1", "--image", "plan.svg", "--width-m", "30", "--config", shipped])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: --config names \(shipped), which stays in force"), "\(r.stderr)")
        let there = try await fp.run(["maps", "--config", shipped])
        #expect(!there.stdout.contains("LAB1"))
        #expect(try await fp.run(["maps"]).stdout.contains("LAB1"))
    }
}
