import FPAnalysis
import Foundation
import Testing

/// The shipped J building as `fprint map show` and `fprint plot heatmap`
/// draw it after a survey walk of each floor: no label printed over a
/// measured point, a beacon or another label, no beacon label struck
/// through by a route line, and every route visible beside the ones
/// sharing its corridor.
@Suite struct MapLabelsCLITests {
    /// Texts of the given classes with their estimated boxes, read from the SVG.
    static func labels(_ svg: String, classes: [String]) -> [(text: String, box: SVGLabelPlacer.Box)] {
        svg.matches(of: /<text class="([a-z-]+)" x="([0-9.-]+)" y="([0-9.-]+)"[^>]*font-size="([0-9.]+)"[^>]*>([^<]*)<\/text>/)
            .filter { classes.contains(String($0.1)) }
            .map { m in
                let text = String(m.5).replacingOccurrences(of: "&amp;", with: "&")
                return (text, SVGLabelPlacer.textBox(text, x: Double(m.2)!, y: Double(m.3)!, size: Double(m.4)!, pad: 0))
            }
    }

    /// Measured points (circles of class `point` or `heard`) and diamonds (`beacon`, `transmitter`) as discs.
    static func marks(_ svg: String) -> [SVGLabelPlacer.Mark] {
        let circles = svg.matches(of: /<circle class="(?:point|heard)" cx="([0-9.-]+)" cy="([0-9.-]+)" r="([0-9.]+)"/).map {
            SVGLabelPlacer.Mark.disc(x: Double($0.1)!, y: Double($0.2)!, r: Double($0.3)!)
        }
        let diamonds = svg.matches(of: /<path class="(?:beacon|transmitter)" d="M([0-9.-]+) ([0-9.-]+)L([0-9.-]+) ([0-9.-]+)L/).map {
            SVGLabelPlacer.Mark.disc(x: Double($0.1)!, y: Double($0.4)!, r: Double($0.3)! - Double($0.1)!)
        }
        return circles + diamonds
    }

    /// Each route's line as segments.
    static func routeLines(_ svg: String) -> [[SVGLabelPlacer.Mark]] {
        svg.matches(of: /<g class="route"[^>]*>.*?<polyline points="([^"]*)"/).map { m in
            let points = m.1.split(separator: " ").map { $0.split(separator: ",").map { Double($0)! } }
            return zip(points, points.dropFirst()).map { .segment(x1: $0[0], y1: $0[1], x2: $1[0], y2: $1[1], width: 2) }
        }
    }

    static func overlaps(_ boxes: [(text: String, box: SVGLabelPlacer.Box)]) -> [String] {
        boxes.indices.flatMap { i in
            boxes.indices.filter { $0 > i && boxes[i].box.overlaps(boxes[$0].box) }.map { "\(boxes[i].text) / \(boxes[$0].text)" }
        }
    }

    @Test func mapShowOfEachJFloorHasNoLabelOverAMarkALineOrALabel() async throws {
        let fp = try FprintRunner()
        for map in ["J1NP", "J2NP", "J3NP"] {
            let walk = try await fp.run(["walk", "--scenario", "scenario\(map)1", "--simulate", "--fast", "--seed", "1"])
            #expect(walk.status == 0, "\(walk.stderr)")
            let file = fp.home.appendingPathComponent("\(map).svg").path
            let r = try await fp.run(["map", "show", map, "-o", file])
            #expect(r.status == 0, "\(r.stderr)")
            let svg = try String(contentsOfFile: file, encoding: .utf8)
            let beaconLabels = Self.labels(svg, classes: ["beacon-label"]), routeNames = Self.labels(svg, classes: ["route-name"])
            let all = beaconLabels + routeNames
            #expect(beaconLabels.count >= 10 && !routeNames.isEmpty, "\(map): \(beaconLabels.count) beacon labels")
            #expect(Self.overlaps(all).isEmpty, "\(map): \(Self.overlaps(all))")
            let marks = Self.marks(svg)
            #expect(marks.count > 30, "\(map): \(marks.count) marks")
            let covering = all.filter { l in marks.contains { $0.hits(l.box) } }.map(\.text)
            #expect(covering.isEmpty, "\(map): labels over a point or beacon: \(covering)")
            let routes = Self.routeLines(svg)
            let struck = all.filter { l in routes.joined().contains { $0.hits(l.box) } }.map(\.text)
            #expect(struck.isEmpty, "\(map): labels under a route line: \(struck)")
            // Routes sharing the loop's corridor: no two lines drawn one over the other.
            for (i, a) in routes.enumerated() {
                for b in routes.dropFirst(i + 1) {
                    let same = a.filter { s in b.contains { "\($0)" == "\(s)" } }
                    #expect(same.isEmpty, "\(map): a route hidden under another along \(same)")
                }
            }
        }
    }

    @Test func heatmapBeaconLabelsCoverNoPointAndNoOtherLabel() async throws {
        let fp = try FprintRunner()
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", "1"])
        #expect(walk.status == 0, "\(walk.stderr)")
        let file = fp.home.appendingPathComponent("heat.svg").path
        let r = try await fp.run(["plot", "heatmap", "--map", "J3NP", "-o", file])
        #expect(r.status == 0, "\(r.stderr)")
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        let labels = Self.labels(svg, classes: ["beacon-label", "transmitter-label"])
        #expect(labels.count == 17, "\(labels.map(\.text))")
        #expect(Self.overlaps(labels).isEmpty, "\(Self.overlaps(labels))")
        let marks = Self.marks(svg)
        let covering = labels.filter { l in marks.contains { $0.hits(l.box) } }.map(\.text)
        #expect(covering.isEmpty, "labels over a point or beacon: \(covering)")
    }
}
