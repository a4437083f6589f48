import Foundation
import Testing

/// docs/own-building.md, followed literally on its example plan (a picture
/// fprint does not ship as a map): a map, its beacons, a route, ten measured
/// points and a walk, an evaluation, a heatmap and the map drawn — with no
/// file edited by hand.
@Suite struct OwnBuildingGuideTests {
    static let examples = FprintRunner.repositoryRoot.appendingPathComponent("docs/examples")

    @Test func theGuideRunsFromAPictureToAHeatmap() async throws {
        let fp = try FprintRunner()
        func ok(_ args: [String]) async throws -> FprintRunner.Result {
            let r = try await fp.run(args)
            #expect(r.status == 0, "fprint \(args.joined(separator: " ")): \(r.stderr)")
            return r
        }
        _ = try await ok(["map", "add", "LAB1", "--image", Self.examples.appendingPathComponent("lab-plan.svg").path, "--floor", "1",
                          "--calibrate", "100,100 1100,100 25m", "--outline", "40,40 1160,40 1160,660 40,660",
                          "--location", "Example building", "--description", "Ground floor"])
        _ = try await ok(["beacons", "import", Self.examples.appendingPathComponent("lab-beacons.csv").path, "--map", "LAB1"])
        _ = try await ok(["scenario", "add", "lab-loop", "--map", "LAB1", "--points", "150,360 1050,360 1050,550 150,550 150,360"])
        let points = [(150, 150), (350, 150), (600, 150), (900, 150), (1100, 150), (150, 360), (600, 360), (1050, 360), (300, 560), (1000, 560)]
        for (x, y) in points {
            _ = try await ok(["measure", "--map", "LAB1", "--x", String(x), "--y", String(y), "--simulate", "--fast"])
        }
        _ = try await ok(["walk", "--scenario", "lab-loop", "--simulate", "--fast"])

        // Ten documents at the points given, simulated from the map's beacon list and saying so.
        let docs = try await ok(["export", "jsonl", "--map", "LAB1"]).lines.map(fp.json)
        let statics = docs.filter { ($0["sessionId"] as? String) == nil }
        let positions = Set(statics.compactMap { d -> String? in
            guard let x = d["x"] as? Int, let y = d["y"] as? Int else { return nil }
            return "\(x),\(y)"
        })
        #expect(positions == Set(points.map { "\($0.0),\($0.1)" }), "\(positions)")
        #expect(docs.count > 10)
        let ble = try #require((statics.first?["providers"] as? [String: Any])?["ble"] as? [String: Any])
        #expect(ble["source"] as? String == "simulated:beacons/LAB1.json" && ble["simulated"] as? Bool == true, "\(ble)")
        let heard = Set(statics.flatMap { ($0["bleScans"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String } })
        #expect(heard == Set((1...6).map { String(format: "C0:FF:EE:00:00:%02d", $0) }), "\(heard)")

        // Evaluated in metres on the plan's scale, drawn on the plan.
        let eval = try await ok(["eval", "--map", "LAB1", "--json"])
        #expect(eval.stdout.contains("\"median\"") || eval.stdout.contains("median"), "\(eval.stdout.prefix(400))")
        let heatmap = fp.home.appendingPathComponent("lab1-heatmap.png").path
        _ = try await ok(["plot", "heatmap", "--map", "LAB1", "--transmitter", "C0:FF:EE:00:00:03", "-o", heatmap])
        let png = try Data(contentsOf: URL(fileURLWithPath: heatmap))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 5_000)
    }
}
