import Foundation
import Testing

/// A floor of one's own simulated from its beacon list: no GNSS note to act
/// on after each measurement, `maps` says what `--simulate` uses, and a
/// BLE-only floor's evaluation has no empty Wi-Fi rows.
@Suite struct SimulatedOwnMapCLITests {
    @Test func aBeaconOnlyFloorSaysOnlyWhatMatters() async throws {
        let fp = try FprintRunner()
        for args in [["map", "add", "LAB1", "--image", StairsWalkCLITests.plan, "--floor", "1", "--calibrate", "100,100 1100,100 25m"],
                     ["beacons", "import", OwnBuildingGuideTests.examples.appendingPathComponent("lab-beacons.csv").path, "--map", "LAB1"]]
        {
            let r = try await fp.run(args)
            #expect(r.status == 0, "\(r.stderr)")
        }
        for (x, y) in [(150, 150), (600, 150), (1100, 150), (150, 360), (600, 360)] {
            let r = try await fp.run(["measure", "--map", "LAB1", "--x", String(x), "--y", String(y), "--simulate", "--fast"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("GNSS 0") && !r.stderr.contains("geo anchor"), "\(r.stderr)")
        }
        let maps = try await fp.run(["maps"])
        let lab = try #require(maps.lines.first { $0.hasPrefix("LAB1") })
        #expect(lab.hasSuffix("beacons"), "\(lab)")
        #expect(maps.lines.first { $0.hasPrefix("J1NP") }?.hasSuffix("yes") == true)
        let mapsJSON = try await fp.run(["maps", "--json"])
        #expect(mapsJSON.stdout.contains(#""simulation":"beacons""#), "\(mapsJSON.stdout.prefix(300))")

        let eval = try await fp.run(["eval", "--map", "LAB1"])
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(!eval.lines.contains { $0.hasPrefix("wifi ") }, "\(eval.stdout)")
        #expect(eval.lines.contains("wifi: left out: none of the measurements has readings of it"), "\(eval.stdout)")
        #expect(eval.lines.filter { $0.hasPrefix("ble ") }.count == 7)
        let json = try await fp.run(["eval", "--map", "LAB1", "--json"])
        #expect(json.stdout.contains(#""wifi""#), "JSON keeps every set")
    }
}
