import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import FPAnalysis

/// Parses SVG text with Foundation's XMLParser and counts elements by name.
final class ElementCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        counts[name, default: 0] += 1
    }

    static func parse(_ svg: String) -> [String: Int]? {
        let parser = XMLParser(data: Data(svg.utf8))
        let counter = ElementCounter()
        parser.delegate = counter
        return parser.parse() ? counter.counts : nil
    }
}

@Suite struct PlotTests {
    @Test func heatmapIsWellFormedWithOneMarkPerPoint() throws {
        let points = [SVGPlot.HeatPoint(x: 10, y: 20, rssi: -60, label: "a<&>\"'"),
                      SVGPlot.HeatPoint(x: 200, y: 100, rssi: nil, label: "b"),
                      SVGPlot.HeatPoint(x: 300, y: 50, rssi: -95, label: "c")]
        let svg = SVGPlot.heatmap(title: "BLE:c5 & co", points: points, mapWidth: 400, mapHeight: 200, underlay: "plan.png?a=1&b=2")
        let counts = try #require(ElementCounter.parse(svg), "not well-formed XML")
        #expect(counts["svg"] == 1 && counts["circle"] == 2 && counts["image"] == 1)
        #expect(svg.contains("a&lt;&amp;&gt;&quot;&apos;"))
        #expect(svg.contains("class=\"unheard\""))
    }

    @Test func seriesAndErrorsAreWellFormed() throws {
        let series = SVGPlot.timeSeries(title: "t", series: [("BLE:a", [(0, -70), (100, -72)]), ("WIFI:B", [(50, -60)])])
        #expect(ElementCounter.parse(series)?["polyline"] == 2)
        let errors = SVGPlot.errors(title: "e", results: [("wifi WKNN k=3", [0.5, 1, 2, 4], 4), ("ble NN k=1", [], 4)])
        #expect(ElementCounter.parse(errors) != nil, "not well-formed XML")
        #expect(errors.components(separatedBy: "class=\"cdf\"").count == 2)  // one CDF; the empty result draws none
        #expect(errors.components(separatedBy: "class=\"box\"").count == 2)  // one box
        #expect(errors.contains("none located"))
    }

    @Test func sparklineScalesBetweenMinAndMax() {
        #expect(SVGPlot.sparkline([-90, -60, -75]) == "▁█▅")
        #expect(SVGPlot.sparkline([1, 1]) == "▄▄")
        #expect(SVGPlot.sparkline([]) == "")
    }

    @Test func colourScaleIsViridisFromWeakToStrong() {
        #expect(SVGPlot.color(rssi: -100) == "#440154" && SVGPlot.color(rssi: -40) == "#fde725")
        #expect(SVGPlot.color(rssi: -130) == "#440154" && SVGPlot.color(rssi: 0) == "#fde725")
        #expect(SVGPlot.color(rssi: -70) == "#21918c")  // the middle anchor
        // Perceptually ordered: lightness (Rec. 709 luma) rises with RSSI all the way.
        func luma(_ hex: String) -> Double {
            let v = Int(hex.dropFirst(), radix: 16)!
            return 0.2126 * Double(v >> 16) + 0.7152 * Double((v >> 8) & 255) + 0.0722 * Double(v & 255)
        }
        let lumas = stride(from: -100.0, through: -40, by: 2).map { luma(SVGPlot.color(rssi: $0)) }
        #expect(zip(lumas, lumas.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func ticksFallOnOneTwoFiveSteps() {
        #expect(SVGPlot.niceTicks(-100, -40) == [-100, -90, -80, -70, -60, -50, -40])
        #expect(SVGPlot.niceTicks(0, 4.9965) == [0, 1, 2, 3, 4])  // a 4996.5 ms series in seconds
        #expect(SVGPlot.niceTicks(0, 5.05) == [0, 1, 2, 3, 4, 5])  // not 2.53 and 5.05
        #expect(SVGPlot.niceTicks(0, 45, target: 8) == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45])
        #expect(SVGPlot.niceTicks(-62.75, -58.2) == [-62, -61, -60, -59])
        #expect(SVGPlot.niceTicks(0, 0.37) == [0, 0.1, 0.2, 0.3])
        #expect(SVGPlot.tickLabel(0.30000000000000004, step: 0.1) == "0.3" && SVGPlot.tickLabel(-90, step: 10) == "-90")
    }

    @Test func heatmapHasMetreAxesAColourBarAndTheOutline() throws {
        let points = [SVGPlot.HeatPoint(x: 100, y: 100, rssi: -60, label: "a")]
        // 2250 map units = 45 m: ticks every 5 m along x.
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 2250, mapHeight: 1000, metersPerUnit: 45.0 / 2250)
        #expect(ElementCounter.parse(svg) != nil)
        #expect(svg.contains("class=\"outline\"") && svg.contains("class=\"colorbar\"") && svg.contains(">dBm</text>"))
        #expect(svg.contains(">x (m)</text>") && svg.contains(">y (m)</text>"))
        for label in ["0", "5", "45", "20"] { #expect(svg.contains(">\(label)</text>"), "no tick \(label) m") }
        for dBm in [-100, -70, -40] { #expect(svg.contains(">\(dBm)</text>"), "no colour-bar tick \(dBm)") }
        #expect(!svg.contains("nan") && !svg.contains("inf") && !svg.contains("=\"-"), "a NaN, infinite or negative size")
    }

    @Test func theSurfaceInterpolatesNearPointsOnly() throws {
        let points = [SVGPlot.HeatPoint(x: 0.5, y: 0.5, rssi: -50, label: "a"),
                      SVGPlot.HeatPoint(x: 4.5, y: 0.5, rssi: -70, label: "b"),
                      SVGPlot.HeatPoint(x: 2.5, y: 0.5, rssi: nil, label: "scanned, not heard")]
        // 1-unit cells over 10 × 4, within 2 units of a point.
        let surface = SVGPlot.Surface(points: points, width: 10, height: 4, cell: 1, reach: 2)
        #expect(surface.columns == 10 && surface.rows == 4)
        #expect(surface.values[0] == -50 && surface.values[4] == -70)  // on a point: its own value
        #expect(surface.values[2] == -100)  // not heard: the floor value
        let between = try #require(surface.values[1])
        #expect(between < -50 && between > -100)  // between its neighbours
        #expect(surface.values[9] == nil && surface.values[3 * 10 + 9] == nil)  // out of reach: no colour
        #expect(surface.values.compactMap { $0 }.allSatisfy { $0.isFinite && $0 >= -100 && $0 <= -50 })
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 10, mapHeight: 4, metersPerUnit: 1)
        #expect(svg.contains("class=\"surface\""))
    }

    @Test func anOutlineIsDrawnAndClipsTheSurface() throws {
        // An L-shaped floor: the square (5…10, 5…10) is outside it.
        let outline: [(x: Double, y: Double)] = [(0, 0), (10, 0), (10, 5), (5, 5), (5, 10), (0, 10)]
        #expect(SVGPlot.inside(outline, x: 2, y: 8) && SVGPlot.inside(outline, x: 8, y: 2))
        #expect(!SVGPlot.inside(outline, x: 8, y: 8) && !SVGPlot.inside(outline, x: 12, y: 2))
        let points = [SVGPlot.HeatPoint(x: 4.5, y: 4.5, rssi: -60, label: "a")]
        let surface = SVGPlot.Surface(points: points, width: 10, height: 10, cell: 1, reach: 20, outline: outline)
        #expect(surface.values[7 * 10 + 7] == nil)  // the cell centred at (7.5, 7.5): outside the floor
        #expect(surface.values[2 * 10 + 7] != nil && surface.values[7 * 10 + 2] != nil)
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 10, mapHeight: 10, metersPerUnit: 1, outline: outline)
        #expect(svg.contains("<polygon class=\"outline\""))
        // The outline drawn, and again as the clipPath that cuts the surface's cells at the wall.
        #expect(ElementCounter.parse(svg)?["polygon"] == 2)
        #expect(svg.contains("<g class=\"surface\" clip-path=\"url(#heatmap-floor)\">"))
    }

    @Test func coverageCellsKeepTheirWeakestPointAndMarkGaps() throws {
        // Cells of 10 units: two points share cell (0,0), one each in (1,0) and (0,2).
        let points: [(x: Double, y: Double, beacons: Int)] = [(1, 1, 5), (9, 9, 2), (15, 5, 4), (3, 25, 0)]
        let cells = SVGPlot.coverageCells(points, cell: 10)
        #expect(cells == [SVGPlot.CoverageCell(column: 0, row: 0, beacons: 2, points: 2),
                          SVGPlot.CoverageCell(column: 1, row: 0, beacons: 4, points: 1),
                          SVGPlot.CoverageCell(column: 0, row: 2, beacons: 0, points: 1)])
        let svg = SVGPlot.coverage(title: "c", points: points, cells: cells, cell: 10, needed: 3, mapWidth: 40, mapHeight: 30,
                                   metersPerUnit: 1)
        let counts = try #require(ElementCounter.parse(svg), "not well-formed XML")
        #expect(counts["circle"] == 4)
        #expect(svg.components(separatedBy: "class=\"gap\"").count - 1 == 2)  // the cells with 2 and 0 beacons
        #expect(svg.components(separatedBy: "class=\"cell\"").count - 1 == 3)
        #expect(svg.contains(">x (m)</text>") && svg.contains("&lt; 3</text>"))
    }

    @Test func seriesAreInSecondsWithARollingMedianAndErrorsHaveABoxAxis() throws {
        let points = (0..<50).map { (time: $0 * 100, rssi: $0 % 10 == 0 ? -90.0 : -60.0) }  // spikes every second
        let svg = SVGPlot.timeSeries(title: "t", series: [("BLE:a", points)])
        #expect(svg.contains(">time (s)</text>") && !svg.contains("time (ms)"))
        #expect(svg.contains(">4</text>") && !svg.contains(">4900</text>"))
        // The line is the rolling median: the lone −90 spikes do not reach it.
        #expect(SVGPlot.rollingMedian(points.map(\.rssi), window: 5).allSatisfy { $0 == -60 })
        let errors = SVGPlot.errors(title: "e", results: [("a", [0.5, 1, 2, 5.05], 4)])
        #expect(errors.contains("class=\"box-axis\"") && errors.contains(">error (m)</text>"))
        #expect(!errors.contains(">2.53</text>") && !errors.contains(">5.05</text>") && errors.contains(">5</text>"))
    }
}

@Suite struct CoverageTests {
    @Test func countsBeaconsAtOrAboveTheThresholdAndFlagsFewerThanThree() {
        func ble(_ a: String, _ r: Double) -> Fingerprint.Sample { .init(transmitter: Fingerprint.bleID(a), rssi: r, time: 0) }
        let fps = [
            Fingerprint(id: "p1", level: "J3NP", x: 0, y: 0, ble: [ble("A", -70), ble("B", -80), ble("C", -90), ble("D", -91)]),
            Fingerprint(id: "p2", level: "J3NP", x: 5, y: 0, ble: [ble("A", -60), ble("A", -100), ble("B", -85)]),  // A median −80
        ]
        let all = Coverage.points(fps, minRSSI: -90, beacons: nil)
        #expect(all[0].heard.map(\.id) == ["BLE:a", "BLE:b", "BLE:c"] && all[0].enough)  // −90 counts, −91 does not
        #expect(all[1].heard.map(\.rssi) == [-80, -85] && !all[1].enough)
        let registry = Coverage.points(fps, minRSSI: -90, beacons: ["BLE:a", "BLE:c"])
        #expect(registry[0].heard.map(\.id) == ["BLE:a", "BLE:c"] && !registry[0].enough)
    }
}
