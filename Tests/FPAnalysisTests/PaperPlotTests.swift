import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@testable import FPAnalysis

/// Parses SVG text and keeps every element's name, attributes and the
/// classes of the groups it sits in, so a test can ask what is drawn where.
final class SVGElements: NSObject, XMLParserDelegate {
    struct Element {
        var name: String
        var attributes: [String: String]
        /// The attributes of the elements it is inside, outermost first.
        var ancestors: [[String: String]]
        var text = ""
    }
    var elements: [Element] = []
    private var open: [Int] = []

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        elements.append(Element(name: name, attributes: attributes, ancestors: open.map { elements[$0].attributes }))
        open.append(elements.count - 1)
    }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = open.last { elements[i].text += string }
    }

    static func parse(_ svg: String) throws -> [Element] {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = SVGElements()
        parser.delegate = collector
        guard parser.parse() else { throw CocoaError(.coderReadCorrupt) }
        return collector.elements
    }
}

extension [SVGElements.Element] {
    func with(class name: String) -> [SVGElements.Element] { filter { $0.attributes["class"] == name } }
    /// The x and y axes' tick labels of a map plot, in metres.
    func mapTicks() -> (x: [Double], y: [Double]) {
        let labels = filter { $0.name == "text" && $0.ancestors.isEmpty == false }
        let axes = labels.filter { $0.attributes["text-anchor"] != nil }
        let xs = axes.filter { $0.attributes["text-anchor"] == "middle" }.compactMap { Double($0.text) }
        let ys = axes.filter { $0.attributes["text-anchor"] == "end" }.compactMap { Double($0.text) }
        return (xs, ys)
    }
}

/// Issue 32's plots as a paper prints them: the heatmap's colours are the
/// bar's, its transmitter and the other beacons are marked, the whole map is
/// drawn at its own aspect; a track has metre axes, stays in its panel and
/// gives each floor a panel of its own.
@Suite struct PaperPlotTests {
    let points = [SVGPlot.HeatPoint(x: 100, y: 100, rssi: -60, label: "a"), SVGPlot.HeatPoint(x: 600, y: 900, rssi: -80, label: "b")]

    @Test func theHeatmapSurfaceIsOpaqueSoItsColoursAreTheBars() throws {
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 2500, mapHeight: 3000, metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        let surface = try #require(elements.with(class: "surface").first)
        #expect(surface.attributes["opacity"] == nil && surface.attributes["fill-opacity"] == nil)
        let cells = elements.filter { $0.name == "rect" && $0.ancestors.last?["class"] == "surface" }
        #expect(!cells.isEmpty && cells.allSatisfy { $0.attributes["opacity"] == nil })
        // Every cell's colour is one the bar's scale gives.
        let bar = Set(stride(from: -100.0, through: -40, by: 0.5).map(SVGPlot.color(rssi:)))
        #expect(cells.contains { bar.contains($0.attributes["fill"] ?? "") })
    }

    @Test func theHeatmapMarksItsTransmitterAndTheOtherRegistryBeacons() throws {
        let shown = SVGPlot.MapBeacon(x: 1441, y: 303, label: "14")
        let others = [SVGPlot.MapBeacon(x: 181, y: 628, label: "17"), SVGPlot.MapBeacon(x: 1013, y: 2594, label: "13")]
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 2500, mapHeight: 3000, metersPerUnit: 0.02,
                                  shown: shown, beacons: others)
        let elements = try SVGElements.parse(svg)
        let marks = elements.with(class: "transmitter")
        #expect(marks.count == 1)
        // At its registry position: 1441 units of 800 − 120 px over 2500 units, from the plot's left.
        let d = try #require(marks.first?.attributes["d"])
        let scale = 680.0 / 2500 * min(1, 760 / (3000 * 680.0 / 2500))
        #expect(d.hasPrefix("M\(String(format: "%.1f", 50 + 1441 * scale)) "), "\(d)")
        #expect(elements.with(class: "beacon").count == 2)
        #expect(elements.with(class: "beacon-label").map(\.text).sorted() == ["13", "17"])
        #expect(elements.with(class: "transmitter-label").map(\.text) == ["14"])
        // Still one circle per point: the marks and the legend are no circles.
        #expect(elements.filter { $0.name == "circle" }.count == points.count)
    }

    @Test func theHeatmapDrawsTheMapsWholeExtentAtItsAspect() throws {
        // The J building's map: 2500 × 3000 units of 0.02 m, points only up to 45 × 49 m.
        let extent = SVGPlot.mapExtent([(x: 2250, y: 2450)], floorPlan: nil, extent: (2500, 3000), metersPerUnit: 0.02)
        #expect(extent.width == 2500 && extent.height == 3000)
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: extent.width, mapHeight: extent.height, metersPerUnit: 0.02)
        let ticks = try SVGElements.parse(svg).mapTicks()
        #expect(ticks.x.max() == 50 && ticks.y.max() == 60, "\(ticks)")
        // A small plan without an extent: its points and 2 m, not the J building's 45 m.
        let small = SVGPlot.mapExtent([(x: 400, y: 300)], floorPlan: nil, metersPerUnit: 0.01)
        #expect(small.width == 600 && small.height == 500)
        // A tall map fits its box: as wide as tall it would be 680 px, 10 × 100 m is 76 px wide and 760 px tall.
        let tall = SVGPlot.heatmap(title: "t", points: points, mapWidth: 1000, mapHeight: 10000, metersPerUnit: 0.01)
        let frame = try #require(try SVGElements.parse(tall).with(class: "outline").first)
        #expect(frame.attributes["width"] == "76.0" && frame.attributes["height"] == "760.0", "\(frame.attributes)")
    }

    func sample(_ t: Double, _ x: Double, _ y: Double, map: String) -> SVGPlot.TrackSample {
        .init(timeS: t, x: x, y: y, truth: (x + 10, y), errorM: 0.5, accuracyM: 1.5, map: map, truthMap: map)
    }

    @Test func aTrackHasMetreAxesAScaleBarAndStaysInItsPanel() throws {
        // 22 estimates below the 3000-unit map (y up to 3239), as a realistic walk gave.
        let samples = (0..<40).map { sample(Double($0), 100 + Double($0) * 50, $0 < 18 ? 2800 : 3239, map: "J3NP") }
        let svg = SVGPlot.track(title: "t", samples: samples, floors: [.init(map: "J3NP", width: 2500, height: 3000)],
                                circles: 3, metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        let ticks = elements.mapTicks()
        #expect(ticks.x.max() == 50 && ticks.y.max() == 60, "\(ticks)")
        #expect(elements.with(class: "scale-bar").count == 1)
        // A clip path the size of the map panel, and every estimate drawn inside it.
        let clip = try #require(elements.first { $0.name == "clipPath" })
        let id = try #require(clip.attributes["id"])
        let fixes = elements.with(class: "fix")
        #expect(fixes.count == 40)
        for mark in fixes + elements.with(class: "estimate") + elements.with(class: "accuracy-circle") {
            #expect(mark.ancestors.contains { $0["clip-path"] == "url(#\(id))" }, "\(mark.attributes) is not clipped")
        }
        let rect = try #require(elements.first { $0.name == "rect" && $0.ancestors.last?["id"] == id })
        let frame = try #require(elements.with(class: "outline").first)
        #expect(rect.attributes["height"] == frame.attributes["height"] && rect.attributes["y"] == frame.attributes["y"])
        #expect(svg.contains("22 estimates off the map"))
        // Readable legends, not the JSON's field names.
        #expect(!svg.contains("accuracy_m") && svg.contains("stated accuracy"))
    }

    @Test func aTrackOverTwoFloorsGetsAPanelEachAndItsFloorChangeMarked() throws {
        let samples = (0..<10).map { sample(Double($0), 500, 500 + Double($0) * 100, map: "J2NP") }
            + (10..<20).map { sample(Double($0), 700, 1500 - Double($0) * 50, map: "J3NP") }
        let floors = [SVGPlot.TrackFloor(map: "J2NP", width: 2500, height: 3000), .init(map: "J3NP", width: 2500, height: 3000)]
        let svg = SVGPlot.track(title: "t", samples: samples, floors: floors, metersPerUnit: 0.02)
        let elements = try SVGElements.parse(svg)
        #expect(elements.with(class: "floor-title").map(\.text) == ["J2NP", "J3NP"])
        #expect(Set(elements.filter { $0.name == "clipPath" }.compactMap { $0.attributes["id"] }).count >= 2)
        // Each floor's estimates in its own panel.
        for (i, floor) in ["J2NP", "J3NP"].enumerated() {
            let mine = elements.with(class: "fix").filter { $0.ancestors.contains { $0["clip-path"] == "url(#track-panel-\(i))" } }
            #expect(mine.count == 10, "\(floor): \(mine.count) estimates")
        }
        // The change: left J2NP at 9 s, reached J3NP at 10 s, and a line in the time panel.
        #expect(elements.with(class: "floor-change-label").map(\.text) == ["to J3NP at 9 s", "from J2NP at 10 s"])
        #expect(elements.with(class: "floor-change").count == 2 && elements.with(class: "floor-change-time").count == 1)
    }
}

@Suite struct CoveragePlotColourTests {
    /// As the heatmap's: a cell's colour is the legend's, not faded by an opacity.
    @Test func coverageCellsAreOpaque() throws {
        let points = [(x: 10.0, y: 10.0, beacons: 4), (x: 300, y: 10, beacons: 1)]
        let cells = SVGPlot.coverageCells(points, cell: 100)
        let svg = SVGPlot.coverage(title: "t", points: points, cells: cells, cell: 100, needed: 3, mapWidth: 400, mapHeight: 200,
                                   metersPerUnit: 0.02)
        let drawn = try SVGElements.parse(svg).with(class: "cell")
        #expect(drawn.count == 2 && drawn.allSatisfy { $0.attributes["opacity"] == nil })
    }
}

@Suite struct MapLabelTests {
    /// A route starting at the map's right edge: its name stays in the picture, beside its start.
    @Test func aNameAtTheRightEdgeStaysInThePictureBesideItsStart() throws {
        let route = SVGPlot.MapRoute(name: "FIM UHK - 2 NP, stairs, 3 NP (track: floor change)", points: [(x: 2400, y: 100), (x: 2400, y: 900)])
        let near = SVGPlot.MapRoute(name: "left", points: [(x: 100, y: 100)])
        let svg = SVGPlot.mapOverview(title: "t", mapWidth: 2500, mapHeight: 1000, metersPerUnit: 0.02, outline: nil, floorPlan: nil,
                                      points: [], beacons: [], routes: [route, near])
        let names = DrawnLabels(try SVGElements.parse(svg), classes: ["route-name"]).boxes
        let scale = 720.0 / 2500
        let frame = SVGLabelPlacer.Box(x0: 50, y0: 40, x1: 770, y1: 40 + 1000 * scale)
        for (name, start) in [(route.name, (x: 2400.0, y: 100.0)), ("left", (x: 100, y: 100))] {
            let box = try #require(names.first { $0.text == name }?.box)
            #expect(frame.contains(box), "\(name): \(box)")
            let x = 50 + start.x * scale, y = 40 + start.y * scale
            #expect(min(abs(box.x0 - x), abs(box.x1 - x)) < 20 && abs((box.y0 + box.y1) / 2 - y) < 30, "\(name): \(box)")
        }
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let p = pow(10, Double(places))
        return (self * p).rounded() / p
    }
}

extension MapLabelTests {
    /// Two routes starting side by side: their names do not print over each other.
    @Test func namesOfRoutesStartingSideBySideDoNotOverlap() throws {
        let a = SVGPlot.MapRoute(name: "FIM UHK - 3 NP, lift, 1 NP", points: [(x: 1000, y: 2400)])
        let b = SVGPlot.MapRoute(name: "FIM UHK - 3 NP (track: two floors down)", points: [(x: 1050, y: 2400)])
        let svg = SVGPlot.mapOverview(title: "t", mapWidth: 2500, mapHeight: 3000, metersPerUnit: 0.02, outline: nil, floorPlan: nil,
                                      points: [], beacons: [], routes: [a, b])
        let names = DrawnLabels(try SVGElements.parse(svg), classes: ["route-name"])
        #expect(names.boxes.count == 2 && names.overlapping.isEmpty, "\(names.boxes)")
    }
}
