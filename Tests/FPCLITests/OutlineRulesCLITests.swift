import Foundation
import Testing

/// Outlines that mean nothing, and routes and points outside a good one, are
/// refused with one line, and the config and the store stay as they were.
@Suite struct OutlineRulesCLITests {
    /// An L-shaped floor on the 1200 × 700 px plan: the top band and the right-hand wing, the inner corner at (600, 350).
    static let ell = "40,40 1160,40 1160,660 600,660 600,350 40,350"

    /// Your own config with LAB1 (the L) and a route round its inside corner.
    func building() async throws -> FprintRunner {
        let fp = try FprintRunner()
        let plan = fp.home.appendingPathComponent("plan.svg")
        try Data(OwnBuildingCLITests.planSVG.utf8).write(to: plan)
        let add = try await fp.run(["map", "add", "LAB1", "--image", plan.path, "--width-m", "30", "--outline", Self.ell])
        #expect(add.status == 0, "\(add.stderr)")
        let route = try await fp.run(["scenario", "add", "round", "--map", "LAB1", "--points", "100,200 1100,200 1100,600"])
        #expect(route.status == 0, "\(route.stderr)")
        return fp
    }

    /// A whole 1200 × 700 JPEG as far as its markers go: SOI, a frame header, a scan, EOI.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0x02, 0xBC, 0x04, 0xB0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1,
                                0xFF, 0xDA, 0x00, 0x0C, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0, 0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD9]

    @Test func aWholeJPEGIsTaken() async throws {
        let fp = try await building()
        try Data(Self.jpeg).write(to: fp.home.appendingPathComponent("whole.jpg"))
        let r = try await fp.run(["map", "add", "LAB2", "--image", "whole.jpg", "--width-m", "30"])
        #expect(r.status == 0 && r.stdout.contains("1200 × 700 px"), "\(r.stderr)")
    }

    func files(_ fp: FprintRunner) throws -> [Data] {
        let home = fp.home.appendingPathComponent("config/fprint")
        return try ["app-config.json", "scenarios.json"].map { try Data(contentsOf: home.appendingPathComponent($0)) }
    }

    @Test(arguments: [
        (["map", "add", "LAB2", "--image", "plan.svg", "--width-m", "30", "--outline", "100,100 900,600 900,100 100,600"], "cross itself"),
        (["map", "add", "LAB2", "--image", "plan.svg", "--width-m", "30", "--outline", "100,100 900,100 900,600 500,600 500,50 100,50"],
         "cross itself"),
        (["map", "add", "LAB2", "--image", "plan.svg", "--width-m", "30", "--outline", "100,100 300,300 500,500"], "no area"),
        (["map", "edit", "LAB1", "--outline", "100,100 900,600 900,100 100,600"], "cross itself"),
        // The route's last waypoint is left outdoors.
        (["map", "edit", "LAB1", "--outline", "40,40 1160,40 1160,300 40,300"], "route round would leave map LAB1: waypoint 3"),
        // Both ends indoors, the leg across the missing quarter.
        (["scenario", "add", "short-cut", "--map", "LAB1", "--points", "100,300 1100,600"],
         "the leg from waypoint 1 (100, 300) to 2 (1100, 600) leaves map LAB1's outline"),
        // Issue 56's small ones: ids differing only in case, route ids as map ids, a JPEG cut short.
        (["map", "add", "lab1", "--image", "plan.svg", "--width-m", "30"], "map lab1 differs from map LAB1 only in case"),
        (["scenario", "add", "my route", "--map", "LAB1", "--points", "100,200 1100,200"], "\"my route\" cannot be a route id"),
        (["scenario", "add", "wég", "--map", "LAB1", "--points", "100,200 1100,200"], "\"wég\" cannot be a route id"),
        (["map", "add", "LAB2", "--image", "cut.jpg", "--width-m", "30"], "cut.jpg: a JPEG cut short"),
    ] as [([String], String)])
    func refusedAndNothingChanged(args: [String], message: String) async throws {
        let fp = try await building()
        try Data(OwnBuildingCLITests.planSVG.utf8).write(to: fp.home.appendingPathComponent("plan.svg"))
        try Data(Self.jpeg.dropLast(2)).write(to: fp.home.appendingPathComponent("cut.jpg"))
        let before = try files(fp)
        let r = try await fp.run(args)
        #expect(r.status == (message.contains("JPEG") ? 65 : 64), "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stderr.lowercased().split(separator: "\n").filter { $0.hasPrefix("error:") }.count == 1, "\(r.stderr)")
        #expect(try files(fp) == before)
    }

    @Test func anOutlineKeepingTheRouteIndoorsIsTaken() async throws {
        let fp = try await building()
        let r = try await fp.run(["map", "edit", "LAB1", "--outline", "40,40 1160,40 1160,660 40,660"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func aPointOutsideTheOutlineIsMeasuredOnlyWithForce() async throws {
        let fp = try await building()
        let beacons = FprintRunner.repositoryRoot.appendingPathComponent("docs/examples/lab-beacons.csv").path
        #expect(try await fp.run(["beacons", "import", beacons, "--map", "LAB1"]).status == 0)
        func stored() async throws -> Int {
            try await fp.run(["export", "jsonl", "--map", "LAB1"]).stdout.split(separator: "\n").count
        }
        // Inside the picture, outdoors of the L.
        let refused = try await fp.run(["measure", "--map", "LAB1", "--x", "300", "--y", "500", "--simulate", "--fast"])
        #expect(refused.status == 64 && refused.stderr.contains("(300, 500) is outside map LAB1's outline")
                && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try await stored() == 0)
        let forced = try await fp.run(["measure", "--map", "LAB1", "--x", "300", "--y", "500", "--simulate", "--fast", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await stored() == 1)
    }
}
