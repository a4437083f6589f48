import Foundation
import Testing

/// A building of your own, shared through `fprint gateway`: the gateway
/// serves your app config with its beacon lists and floor-plan pictures
/// under `/config/`, and a teammate whose config is the served one sees the
/// same beacons, can `--simulate` the map from them (it has no environment
/// file) and draws the plan.
@Suite struct ServedOwnBuildingCLITests {
    @Test func aTeammateGetsTheMapsBeaconListFromTheGateway() async throws {
        let s = try ClientSyncCLITests.Setup(users: "carol:pa55word-Q\n")
        let examples = FprintRunner.repositoryRoot.appendingPathComponent("docs/examples")
        for args in [["map", "add", "LAB1", "--image", examples.appendingPathComponent("lab-plan.svg").path, "--floor", "1",
                      "--calibrate", "100,100 1100,100 25m", "--outline", "40,40 1160,40 1160,660 40,660"],
                     ["beacons", "import", examples.appendingPathComponent("lab-beacons.csv").path, "--map", "LAB1"]] {
            let r = try await s.runner.run(args)
            #expect(r.status == 0, "\(args[0]): \(r.stderr)")
        }
        let gateway = try await s.gateway()
        defer { gateway.kill9() }

        var teammate = try FprintRunner()
        teammate.environment["FPRINT_TOKEN"] = nil
        let set = try await teammate.run(["config", "set", "config-url", "http://carol:pa55word-Q@127.0.0.1:\(gateway.port)/config/app-config.json"])
        #expect(set.status == 0, "\(set.stderr)")
        let beacons = try await teammate.run(["beacons", "--map", "LAB1"])
        #expect(beacons.status == 0, "\(beacons.stderr)")
        for n in 1...6 { #expect(beacons.stdout.contains(String(format: "C0:FF:EE:00:00:%02d", n)), "\(beacons.stdout)") }
        #expect(beacons.stderr.contains("LAB1: 6 beacons from beacons/LAB1.json served beside http://"), "\(beacons.stderr)")
        #expect(!beacons.stderr.contains("pa55word-Q"))
        let measured = try await teammate.run(["measure", "--map", "LAB1", "--x", "600", "--y", "360", "--simulate", "--fast",
                                               "--duration", "5", "--json"])
        #expect(measured.status == 0, "\(measured.stderr)")
        let doc = try teammate.json(try #require(measured.lines.first))
        let ble = try #require((doc["providers"] as? [String: Any])?["ble"] as? [String: Any])
        #expect((ble["source"] as? String)?.hasPrefix("simulated:") == true, "\(ble)")
        #expect(((doc["bleScans"] as? [[String: Any]]) ?? []).count > 0)

        // The plan's picture comes from the gateway too, byte for byte.
        let png = teammate.home.appendingPathComponent("lab1.png").path
        let shown = try await teammate.run(["map", "show", "LAB1", "-o", png])
        #expect(shown.status == 0, "\(shown.stderr)")
        let drawn = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(drawn.starts(with: [0x89, 0x50, 0x4E, 0x47]) && drawn.count > 5_000)
        let served = try await teammate.run(["map", "show", "LAB1", "--json"])
        let plan = try #require(try teammate.json(served.stdout)["floorPlan"] as? [String: Any])
        #expect(plan["widthPx"] as? Int == 1200 && plan["problem"] == nil, "\(plan)")
    }
}
