import Foundation
import Testing
import FPTestSupport

/// The maps of imported datasets drawn as what they are (issue 60 items 1
/// and 6): `map show` knows them from the store (metres, the data's
/// extent), walls come from a layout file, a plot starts where far-off data
/// start, repeated measurements at one place are one mark, and every plot of
/// a dataset carries its credit.
@Suite struct ImportedMapCLITests {
    /// The labelled metre ticks of a map's x (text-anchor middle) or y (end) axis, value → pixel.
    static func ticks(_ svg: String, x: Bool) -> [Double: Double] {
        guard let axes = svg.components(separatedBy: "<g class=\"map-axes\"").dropFirst().first else { return [:] }
        let anchor = x ? "text-anchor=\"middle\">" : "text-anchor=\"end\">"
        var out: [Double: Double] = [:]
        for part in axes.components(separatedBy: "<text x=\"").dropFirst() {
            let fields = part.components(separatedBy: "\"")
            guard fields.count > 2, part.contains(anchor), let label = part.components(separatedBy: anchor).last?.prefix(while: { $0 != "<" }),
                  let metres = Double(label), let px = Double(x ? fields[0] : fields[2]) else { continue }
            out[metres] = px
        }
        return out
    }

    @Test func mapShowKnowsAnImportedMapInMetresWithItsWallsAndCredit() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping).status == 0)
        let shown = try await fp.run(["map", "show", "ble-flat-robot", "--json"])
        #expect(shown.status == 0, "not in the app config, yet in the store: \(shown.stderr)")
        let facts = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect((facts["scale"] as? [String: Any])?["metersPerUnit"] as? Double == 1)
        #expect(facts["measurements"] as? Int == 4 && facts["measuredPoints"] as? Int == 3, "rows 0 and 1 lie 1 mm apart: one place")
        #expect((facts["description"] as? String)?.contains("imported from ble-flat-robot") == true)

        let path = fp.home.appendingPathComponent("flat.svg").path
        let drawn = try await fp.run(["map", "show", "ble-flat-robot", "--outline", DatasetFixtures.path("ble-flat-walls.csv"), "-o", path])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        // The walls' L reaches 6 m down: the axis holds it, and the outline has its 7 corners.
        let y = Self.ticks(svg, x: false)
        #expect(y[6] != nil && y[0] != nil, "\(y)")
        #expect(svg.contains("Kolakowski") && svg.contains("CC BY 4.0"), "the dataset's credit under the drawing")
        let listed = try await fp.run(["maps", "--json"])
        let maps = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let stored = maps.filter { $0["source"] as? String == "store" }
        #expect(stored.count == 1 && stored.first?["id"] as? String == "ble-flat-robot" && stored.first?["documents"] as? Int == 4,
                "`fprint maps` lists the map only the store knows: \(stored)")
        #expect(maps.contains { $0["id"] as? String == "J1NP" && $0["source"] as? String == "config" })
        let table = try await fp.run(["maps"])
        #expect(table.stdout.contains("ble-flat-robot") && table.stdout.contains("in the store only: 4 measurements"), "\(table.stdout)")
        let unknown = try await fp.run(["map", "show", "nowhere"])
        #expect(unknown.status == 66 && unknown.stderr.contains("unknown map 'nowhere'"), "\(unknown.stderr)")
    }

    /// UJIIndoorLoc's positions are projected metres (x ≈ −7,540, y ≈ 4,864,930):
    /// drawn from 0 they would be one dot in a 4,800 km plot.
    @Test func aPlotOfFarOffDataStartsWhereTheyDo() async throws {
        let fp = try FprintRunner()
        let imported = try await fp.run(["import", DatasetFixtures.path("ujiindoorloc-mini.csv")] + DatasetFixtures.indoorLocMapping)
        #expect(imported.status == 0, "\(imported.stderr)")
        // Wi-Fi only: beacon coverage has nothing to count, and says so instead of drawing every place a gap.
        for command in [["coverage"], ["plot", "coverage", "-o", fp.home.appendingPathComponent("c.svg").path]] {
            let coverage = try await fp.run(command + ["--map", "UJIIndoorLoc-1-2"])
            #expect(coverage.status == 66 && coverage.stderr.contains("holds a BLE reading (Wi-Fi only)"), "\(coverage.stderr)")
        }
        let path = fp.home.appendingPathComponent("far.svg").path
        let heat = try await fp.run(["plot", "heatmap", "--map", "UJIIndoorLoc-1-2", "--transmitter", "WAP003", "-o", path])
        #expect(heat.status == 0, "\(heat.stderr)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        let x = Self.ticks(svg, x: true), y = Self.ticks(svg, x: false)
        #expect(x.keys.allSatisfy { $0 > -7_560 && $0 < -7_500 } && x.count >= 3, "x axis at the data: \(x.keys.sorted())")
        #expect(y.keys.allSatisfy { $0 > 4_864_900 && $0 < 4_864_970 } && y.count >= 3, "y axis at the data: \(y.keys.sorted())")
        // A point drawn where its metres say: −7,541.26 on the x axis's scale.
        let ticks = x.sorted { $0.key < $1.key }
        let pxPerMetre = (ticks.last!.value - ticks.first!.value) / (ticks.last!.key - ticks.first!.key)
        let cxs = svg.components(separatedBy: "<circle class=\"heard\" cx=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        let metres = cxs.map { ticks.first!.key + ($0 - ticks.first!.value) / pxPerMetre }
        #expect(metres.contains { abs($0 - -7_541.2643) < 0.05 }, "\(metres)")
        #expect(svg.contains("UJIIndoorLoc") && svg.contains("CC BY 4.0"))
    }

    /// UJI's library measured each place dozens of times: one mark a place, its tooltip counting them.
    @Test func repeatedMeasurementsAtOnePlaceAreOneMark() async throws {
        let fp = try FprintRunner()
        // Three rows at one place (one not hearing rssi_1), one elsewhere.
        let table = """
            ,ts,x,heading,y,rssi_1,rssi_2
            0,1.6e+18,2.0,0,3.0,-60.0,-70.0
            1,1.6000000001e+18,2.0,0,3.0,-64.0,-71.0
            2,1.6000000002e+18,2.0,0,3.0,,-72.0
            3,1.6000000003e+18,4.0,0,1.0,-80.0,-60.0
            """
        let csv = fp.home.appendingPathComponent("same-place.csv")
        try Data((table + "\n").utf8).write(to: csv)
        #expect(try await fp.run(["import", csv.path] + DatasetFixtures.flatMapping).status == 0)
        let path = fp.home.appendingPathComponent("h.svg").path
        let heat = try await fp.run(["plot", "heatmap", "--map", "ble-flat-robot", "--transmitter", "rssi_1", "-o", path,
                                     "--credit", "Survey: own building, 2026"])
        #expect(heat.status == 0, "\(heat.stderr)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        let circles = svg.components(separatedBy: "<circle class=\"heard\"").count - 1
        #expect(circles == 2, "two places, not four marks: \(circles)")
        // The place's reading: the median of −60, −64 and not heard is −64; 2 of its 3 heard it.
        #expect(svg.contains("3 measurements") && svg.contains("heard in 2") && svg.contains("-64.0 dBm"), "\(svg)")
        #expect(svg.contains("heard at 3 of 4 points (2 places)"))
        #expect(svg.contains("Survey: own building, 2026") && svg.contains("Kolakowski"), "--credit beside the dataset's")
    }
}
