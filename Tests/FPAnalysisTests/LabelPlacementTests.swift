import Foundation
import Testing

@testable import FPAnalysis

/// The boxes of a plot's labels as drawn (estimated text extents), and the
/// marks they must keep clear of, read back from the SVG text.
struct DrawnLabels {
    var boxes: [(text: String, box: SVGLabelPlacer.Box)]

    init(_ elements: [SVGElements.Element], classes: Set<String>) {
        boxes = elements.filter { $0.name == "text" && classes.contains($0.attributes["class"] ?? "") }.map { e in
            let x = Double(e.attributes["x"] ?? "") ?? .nan, y = Double(e.attributes["y"] ?? "") ?? .nan
            let size = Double(e.attributes["font-size"] ?? "") ?? 12
            return (e.text, SVGLabelPlacer.textBox(e.text, x: x, y: y, textAnchor: e.attributes["text-anchor"] ?? "start",
                                                   size: size, pad: 0))
        }
    }

    /// Pairs of labels printed over each other.
    var overlapping: [(String, String)] {
        boxes.indices.flatMap { i in
            boxes.indices.filter { $0 > i && boxes[i].box.overlaps(boxes[$0].box) }.map { (boxes[i].text, boxes[$0].text) }
        }
    }

    /// Labels covering one of the `marks`.
    func covering(_ marks: [SVGLabelPlacer.Mark]) -> [String] {
        boxes.filter { b in marks.contains { $0.hits(b.box) } }.map(\.text)
    }
}

extension [SVGElements.Element] {
    /// The circles of a class as discs.
    func discs(class name: String) -> [SVGLabelPlacer.Mark] {
        with(class: name).compactMap { e in
            guard let x = Double(e.attributes["cx"] ?? ""), let y = Double(e.attributes["cy"] ?? ""),
                  let r = Double(e.attributes["r"] ?? "") else { return nil }
            return .disc(x: x, y: y, r: r)
        }
    }

    /// Diamonds (`M cx top L right cy ...`) of a class as discs of their half-size.
    func diamonds(class name: String) -> [SVGLabelPlacer.Mark] {
        with(class: name).compactMap { e in
            let n = (e.attributes["d"] ?? "").split(whereSeparator: { "MLZ ".contains($0) }).compactMap { Double($0) }
            guard n.count >= 4 else { return nil }
            return .disc(x: n[0], y: n[3], r: n[2] - n[0])
        }
    }

    /// Polylines of a class (or in a group of that class) as segments.
    func segments(class name: String, width: Double = 1) -> [SVGLabelPlacer.Mark] {
        let lines = filter { $0.name == "polyline" && ($0.attributes["class"] == name || $0.ancestors.last?["class"] == name) }
        return lines.flatMap { line -> [SVGLabelPlacer.Mark] in
            let points = line.polyline
            return zip(points, points.dropFirst()).map { a, b in .segment(x1: a.x, y1: a.y, x2: b.x, y2: b.y, width: width) }
        }
    }
}

extension SVGElements.Element {
    /// A polyline's points.
    var polyline: [(x: Double, y: Double)] {
        (attributes["points"] ?? "").split(separator: " ").compactMap { pair in
            let xy = pair.split(separator: ",").compactMap { Double($0) }
            return xy.count == 2 ? (xy[0], xy[1]) : nil
        }
    }
}

/// Labels placed where they cover no mark and no other label: the placer
/// itself, the heatmap's beacon labels among its points, and routes sharing
/// a corridor on `map show` drawn side by side in their own dash and marker.
@Suite struct LabelPlacementTests {
    static let frame = SVGLabelPlacer.Box(x0: 0, y0: 0, x1: 400, y1: 400)

    @Test func aLabelStaysOffALineThroughItsAnchorAndOffAnEarlierLabel() {
        var placer = SVGLabelPlacer(frame: Self.frame)
        placer.add(.segment(x1: 0, y1: 200, x2: 400, y2: 200, width: 2.5))
        let first = placer.place("Door", near: 200, 200)
        let second = placer.place("Door 2", near: 200, 200)
        #expect(first.clear && second.clear)
        #expect(!first.box.overlaps(second.box))
        for box in [first.box, second.box] {
            #expect(!SVGLabelPlacer.Mark.segment(x1: 0, y1: 200, x2: 400, y2: 200, width: 2.5).hits(box), "\(box)")
            #expect(Self.frame.contains(box))
        }
    }

    @Test func aCrowdedAnchorGetsALeaderLineAndTheFrameHoldsTheLabel() {
        var placer = SVGLabelPlacer(frame: Self.frame)
        let crowd = SVGLabelPlacer.Box(x0: 360, y0: 360, x1: 400, y1: 400)
        placer.add(.box(.init(x0: 330, y0: 330, x1: 400, y1: 400)))
        let p = placer.place("beacon 14", near: 380, 380)
        #expect(p.clear && p.leader != nil)
        #expect(Self.frame.contains(p.box) && !p.box.overlaps(crowd))
        // The leader is a mark now: the next label does not cross it.
        let next = placer.place("beacon 15", near: 380, 380)
        #expect(next.clear && !next.box.overlaps(p.box))
    }

    @Test func heatmapBeaconLabelsCoverNoPointAndNoOtherLabel() throws {
        // A survey grid every 60 units with registry beacons between and right beside points.
        var points: [SVGPlot.HeatPoint] = []
        for x in stride(from: 20.0, through: 380, by: 30) {
            for y in stride(from: 20.0, through: 180, by: 30) { points.append(.init(x: x, y: y, rssi: -70, label: "p")) }
        }
        let beacons = [(20.0, 35.0), (50, 35), (80, 35), (200, 95), (215, 95), (300, 155)].enumerated().map {
            SVGPlot.MapBeacon(x: $1.0, y: $1.1, label: "C5:D5:\($0)\($0)")
        }
        let svg = SVGPlot.heatmap(title: "t", points: points, mapWidth: 400, mapHeight: 200, metersPerUnit: 0.1,
                                  shown: beacons[3], beacons: Array(beacons.dropFirst(4) + beacons.prefix(3)))
        let elements = try SVGElements.parse(svg)
        let labels = DrawnLabels(elements, classes: ["beacon-label", "transmitter-label"])
        #expect(labels.boxes.count == 6)
        #expect(labels.overlapping.isEmpty, "\(labels.overlapping)")
        let marks = elements.discs(class: "heard") + elements.diamonds(class: "beacon") + elements.diamonds(class: "transmitter")
        #expect(labels.covering(marks).isEmpty, "\(labels.covering(marks))")
    }

    @Test func routesSharingACorridorAreDrawnSideBySideInTheirOwnDashAndMarker() throws {
        let loop = [(x: 100.0, y: 100.0), (x: 2000, y: 100), (x: 2000, y: 900), (x: 100, y: 900)]
        let routes = [SVGPlot.MapRoute(name: "loop", points: loop),
                      SVGPlot.MapRoute(name: "loop backwards", points: loop.reversed()),
                      SVGPlot.MapRoute(name: "elsewhere", points: [(x: 500, y: 500), (x: 900, y: 500)])]
        let svg = SVGPlot.mapOverview(title: "t", mapWidth: 2500, mapHeight: 1000, metersPerUnit: 0.02, outline: nil, floorPlan: nil,
                                      points: [], beacons: [], routes: routes)
        let elements = try SVGElements.parse(svg)
        let lines = elements.filter { $0.name == "polyline" && $0.ancestors.last?["class"] == "route" }
        #expect(lines.count == 3)
        // The top edge (y = 100 units, 40 + 28.8 px): the two loops at least a line's width apart.
        let tops = lines.prefix(2).map { $0.polyline.map(\.y).min()! }
        #expect(abs(tops[0] - tops[1]) >= 3, "\(tops)")
        // The route walking alone stays where it was surveyed: y = 500 units.
        #expect(lines[2].polyline.allSatisfy { abs($0.y - (40 + 500 * 720.0 / 2500)) < 0.06 }, "\(lines[2].polyline)")
        #expect(Set(lines.map { $0.attributes["stroke-dasharray"] ?? "solid" }).count == 3)
        // A legend entry a route: a sample line and the name.
        let entries = elements.filter { $0.name == "g" && $0.attributes["class"] == "legend-entry" }
        #expect(entries.count == 3)
        let legend: [String] = elements.filter { $0.name == "text" && $0.ancestors.last?["class"] == "legend-entry" }.map { $0.text }
        #expect(legend == ["loop", "loop backwards", "elsewhere"])
        let names = DrawnLabels(elements, classes: ["route-name"])
        #expect(names.boxes.count == 3 && names.overlapping.isEmpty, "\(names.overlapping)")
    }

    @Test func laneOffsetsMitreCornersAndKeepTheSideWhicheverWayARouteWalks() {
        let square = [(x: 0.0, y: 0.0), (x: 100, y: 0), (x: 100, y: 100)]
        let moved = SVGPlot.offset(square, by: 4)
        // Down 4 on the horizontal leg, right 4 on the vertical one; the corner where both meet.
        #expect(moved.map { [$0.x, $0.y] } == [[0, 4], [104, 4], [104, 100]])
        let back = SVGPlot.offset(square.reversed(), by: 4)
        #expect(back.reversed().map { [$0.x, $0.y] } == moved.map { [$0.x, $0.y] })
        #expect(SVGPlot.lanes([square, square.reversed(), [(x: 0, y: 50), (x: 40, y: 50)]]) == [0, 1, 0])
    }
}
