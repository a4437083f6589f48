import Foundation
import Testing

/// Issue 32's plots through the command line: a heatmap's default
/// transmitter, its registry marks and whole map, titles naming the map and
/// the radio set, a track over two floors, and an output name fprint cannot
/// write refused before anything is written.
@Suite struct PlotPaperCLITests {
    let config = ["--config", FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path]

    @Test func aPlotNamedForAFormatFprintCannotWriteIsRefusedAndNothingIsWritten() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1"] + config).status == 0)
        for name in ["x.jpg", "x.pdf", "x"] {
            let out = fp.home.appendingPathComponent(name).path
            let r = try await fp.run(["plot", "errors", "--map", "J1NP", "-o", out] + config)
            #expect(r.status == 64 && r.stderr.contains("\(name): fprint writes a plot as .svg or .png"), "\(name): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(name) was written")
        }
        // The names it can write are what they say: SVG text in .svg (any case).
        let svg = fp.home.appendingPathComponent("x.SVG").path
        #expect(try await fp.run(["plot", "errors", "--map", "J1NP", "-o", svg] + config).status == 0)
        #expect(try String(contentsOfFile: svg, encoding: .utf8).hasPrefix("<?xml"))
    }

    @Test func theHeatmapShowsTheMostHeardTransmitterOnTheWholeMapWithItsBeacons() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "1"] + config).status == 0)
        let r = try await fp.run(["plot", "heatmap", "--map", "J3NP"] + config)
        #expect(r.status == 0, "\(r.stderr)")
        let svg = r.stdout
        // No transmitter is heard at more points than the one chosen (the title says how many).
        let said = try #require(svg.firstMatch(of: /<title>([A-Z]+:[^ ]+)[^<]* on J3NP: heard at ([0-9]+) of ([0-9]+) points<\/title>/))
        let heard = Int(said.2)!
        #expect(heard > 0 && heard <= Int(said.3)!)
        let list = try await fp.run(["plot", "heatmap", "--map", "J3NP", "--transmitter", "C5:D5:21:51:D7:90"] + config)
        let other = try #require(list.stdout.firstMatch(of: /heard at ([0-9]+) of/))
        #expect(Int(other.1)! <= heard)
        // Beacon 14 (C5:D5:21:51:D7:90) is the registry's: marked as the one shown, the others hollow.
        #expect(list.stdout.components(separatedBy: "class=\"transmitter\"").count - 1 == 1)
        let registry = try String(contentsOf: FprintRunner.repositoryRoot.appendingPathComponent("Config/beacons/J3NP.json"), encoding: .utf8)
        let beacons = registry.components(separatedBy: "\"mac\"").count - 1
        #expect(list.stdout.components(separatedBy: "class=\"beacon\"").count - 1 == beacons - 1)
        // The map's whole extent (2500 × 3000 units of 0.02 m): the axes reach 50 and 60 m.
        #expect(svg.contains(">50</text>") && svg.contains(">60</text>"))
    }

    @Test func errorAndTrackTitlesNameTheMapAndTheRadios() async throws {
        let fp = try FprintRunner()
        for map in ["J2NP", "J3NP"] {
            #expect(try await fp.run(["walk", "--scenario", "scenario\(map)1", "--simulate", "--fast", "--seed", "1"] + config).status == 0)
        }
        let e = try await fp.run(["plot", "errors", "--map", "J3NP", "--set", "ble,combined"] + config)
        #expect(e.stdout.contains("<title>Leave-one-out errors on J3NP, ble, combined ("), "\(e.stdout.prefix(400))")
        // Up the stairs: two floors, a panel each, the change marked, a title naming both.
        let t = try await fp.run(["track", "--auto-map", "--simulate", "--scenario", "scenarioJ2J3", "--seed", "7", "--fast",
                                  "--truth", "--json"] + config)
        #expect(t.status == 0, "\(t.stderr)")
        #expect(t.stdout.contains("\"radios\":[\"ble\",\"wifi\"]"), "\(t.lines.first ?? "")")
        let jsonl = fp.home.appendingPathComponent("floors.jsonl")
        try t.stdout.write(to: jsonl, atomically: true, encoding: .utf8)
        let p = try await fp.run(["plot", "track", jsonl.path] + config)
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("<title>Track on J2NP → J3NP: fused, BLE + Wi-Fi ("), "\(p.stdout.prefix(300))")
        #expect(p.stdout.contains(">J2NP</text>") && p.stdout.contains(">J3NP</text>"))
        #expect(p.stdout.contains("class=\"floor-change\"") && p.stdout.contains("class=\"floor-change-time\""))
        #expect(p.stdout.contains("clip-path=\"url(#track-panel-1)\""))
    }
}
