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
        let errors = SVGPlot.errors(title: "e", results: [("wifi WKNN k=3", [0.5, 1, 2, 4]), ("ble NN k=1", [])])
        let counts = try #require(ElementCounter.parse(errors))
        #expect(counts["path"] == 1)  // one CDF; the empty result draws nothing
        #expect(counts["g"] == 2)  // axes + one box
    }

    @Test func sparklineScalesBetweenMinAndMax() {
        #expect(SVGPlot.sparkline([-90, -60, -75]) == "▁█▅")
        #expect(SVGPlot.sparkline([1, 1]) == "▄▄")
        #expect(SVGPlot.sparkline([]) == "")
    }

    @Test func colourScaleEnds() {
        #expect(SVGPlot.color(rssi: -100) == "#0040ff" && SVGPlot.color(rssi: -40) == "#ff4000")
        #expect(SVGPlot.color(rssi: -130) == "#0040ff")
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
