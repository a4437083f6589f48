import FPTestSupport
import Foundation
import Testing

@Suite struct PlotCoverageCLITests {
    /// Checks well-formedness with Python's XML parser, as a browser's would.
    func wellFormed(_ path: String) async throws -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])", path]
        return try await p.startAwaitingExit().value() == 0
    }

    @Test func plotsAndCoverageOfASimulatedWalk() async throws {
        let fp = try FprintRunner()
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "3"])
        #expect(walk.status == 0)
        let heat = fp.home.appendingPathComponent("heat.svg").path
        let h = try await fp.run(["plot", "heatmap", "--map", "J3NP", "--transmitter", "C5:D5:21:51:D7:90", "-o", heat])
        #expect(h.status == 0, "\(h.stderr)")
        #expect(try await wellFormed(heat))
        let heatText = try String(contentsOfFile: heat, encoding: .utf8)
        #expect(heatText.components(separatedBy: "<circle").count - 1 + heatText.components(separatedBy: "class=\"unheard\"").count - 1
                == walk.lines.count)  // one mark per measured point

        let id = try #require(walk.lines.first)
        let series = try await fp.run(["plot", "series", id])
        #expect(series.status == 0 && series.stdout.hasPrefix("<?xml") && series.stdout.contains("<polyline"))
        let spark = try await fp.run(["plot", "series", id, "--sparkline", "--top", "2"])
        #expect(spark.lines.count == 2)

        let errors = fp.home.appendingPathComponent("errors.svg").path
        #expect(try await fp.run(["plot", "errors", "--k", "1..3", "-o", errors]).status == 0)
        #expect(try await wellFormed(errors))
        let errorsText = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(errorsText.components(separatedBy: "class=\"cdf\"").count - 1 == 9)  // 3 sets × k 1…3 (WKNN)

        let cov = try await fp.run(["coverage", "--map", "J3NP", "--json"])
        #expect(cov.status == 0, "\(cov.stderr)")
        let rows = try cov.lines.map(fp.json)
        #expect(rows.count == walk.lines.count)
        for r in rows {
            let n = r["beacons"] as? Int ?? -1
            #expect((r["enough"] as? Bool) == (n >= 3))
            // Only registry beacons of Config/beacons/J3NP.json count, each at ≥ −90 dBm.
            for b in r["heard"] as? [[String: Any]] ?? [] { #expect((b["rssi"] as? Double ?? -200) >= -90) }
        }
        let table = try await fp.run(["coverage", "--map", "J3NP", "--min-rssi=-60"])
        #expect(table.stdout.contains("FEWER THAN 3") && table.stderr.contains("with fewer than 3 beacons at ≥ -60 dBm"))
    }

    @Test(arguments: [
        (["plot", "heatmap", "--transmitter", "AA"], Int32(64), "give --map"),
        (["plot", "heatmap", "--map", "J3NP", "--transmitter", "AA"], Int32(66), "no measurements match"),
        (["plot", "series", "nope"], Int32(66), "no document with id nope"),
        (["coverage"], Int32(66), "no measurements match the filters"),
        (["coverage", "--min-rssi", "5"], Int32(64), "--min-rssi must be a dBm value"),
    ])
    func badInput(args: [String], status: Int32, message: String) async throws {
        try await FprintRunner.expectRefusal(args, status: status, message: message)
    }
}
