import Foundation
import Testing
import FPTestSupport

/// Plots of an imported dataset's map (issue 60 item 1): its positions are
/// metres (`position.unit`), drawn where they were taken on a metre axis at
/// the data's extent, not scaled as the J building's map units.
@Suite struct DatasetPlotCLITests {
    /// The x pixel of each labelled metre tick of the map's x axis.
    static func xTicks(_ svg: String) -> [Double: Double] {
        guard let axes = svg.components(separatedBy: "<g class=\"map-axes\"").dropFirst().first else { return [:] }
        var out: [Double: Double] = [:]
        for part in axes.components(separatedBy: "<text x=\"").dropFirst() {
            let x = Double(part.prefix { $0 != "\"" }) ?? .nan
            guard part.contains("text-anchor=\"middle\">"), let label = part.components(separatedBy: "text-anchor=\"middle\">").last?.prefix(while: { $0 != "<" }),
                  let metres = Double(label) else { continue }
            out[metres] = x
        }
        return out
    }

    @Test func heatmapAndCoverageOfAnImportedMapAreInMetres() async throws {
        let fp = try FprintRunner()
        let imported = try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping)
        #expect(imported.status == 0, "\(imported.stderr)")
        let svgPath = fp.home.appendingPathComponent("flat.svg").path
        let heat = try await fp.run(["plot", "heatmap", "--map", "ble-flat-robot", "--transmitter", "rssi_1", "-o", svgPath])
        #expect(heat.status == 0, "\(heat.stderr)")
        #expect(!heat.stderr.contains("45 m = 2250 units"), "an imported map is not the J building: \(heat.stderr)")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        let ticks = Self.xTicks(svg)
        // The data reach 4.22 m (plus a 2 m margin): the axis runs past 6 m, not 0–2 m.
        let zero = try #require(ticks[0]), six = try #require(ticks[6], "ticks \(ticks)")
        let pxPerMetre = (six - zero) / 6
        // Each place where it was taken: the circles' x are the rows' metres (0.75 and 4.2226, where rows
        // 0 and 1 lie 1 mm apart and are one mark; the row at 1.5 m did not hear rssi_1).
        let cxs = svg.components(separatedBy: "<circle class=\"heard\" cx=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
        let metres = cxs.map { ($0 - zero) / pxPerMetre }.sorted()
        #expect(metres.count == 2 && zip(metres, [0.75, 4.2226]).allSatisfy { abs($0 - $1) < 0.01 }, "\(metres)")

        let cover = try await fp.run(["plot", "coverage", "--map", "ble-flat-robot", "--cell", "1", "-o", fp.home.appendingPathComponent("c.svg").path])
        #expect(cover.status == 0 && !cover.stderr.contains("45 m = 2250 units"), "\(cover.stderr)")
        // Points 0.75, 1.5 and 4.2 m apart fall in three 1 m cells (as J units they were one).
        #expect(cover.stderr.contains("3 cells measured"), "\(cover.stderr)")
    }

    /// A row of a table is one instant: `plot series` draws its readings as bars, not an empty time axis.
    @Test func seriesOfAnImportedFingerprintIsItsReadings() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping).status == 0)
        let id = try #require(try await fp.listed().compactMap { $0["id"] as? String }.first { $0.hasSuffix(":ble-flat-mini:1") })
        let path = fp.home.appendingPathComponent("row.svg").path
        let r = try await fp.run(["plot", "series", id, "-o", path])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!svg.contains("<polyline") && !svg.contains("time (s)"), "no time axis for one instant")
        // Row 1 heard all six transmitters; the strongest (rssi_4, -49.55) first, each value written.
        let bars = svg.components(separatedBy: "<rect class=\"reading\"").count - 1
        #expect(bars == 6 && svg.contains("one reading each, 6 transmitters"), "\(bars)")
        let names = svg.components(separatedBy: "text-anchor=\"end\">").dropFirst().map { String($0.prefix { $0 != "<" }) }
        #expect(names.first == "BLE:rssi_4" && svg.contains(">-49.6</text>"), "\(names)")
    }
}
