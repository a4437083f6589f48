import Foundation

extension SVGPlot {
    /// A registry beacon drawn on a map: a diamond of `beaconColor`, labelled.
    package struct MapBeacon: Sendable, Equatable {
        package var x: Double, y: Double
        package var label: String
        package init(x: Double, y: Double, label: String) {
            self.x = x
            self.y = y
            self.label = label
        }
    }

    /// A scenario's route on a map: its waypoints (map units) and its name.
    package struct MapRoute: Sendable, Equatable {
        package var name: String
        package var points: [(x: Double, y: Double)]
        package init(name: String, points: [(x: Double, y: Double)]) {
            self.name = name
            self.points = points
        }
        package static func == (a: MapRoute, b: MapRoute) -> Bool {
            a.name == b.name && a.points.elementsEqual(b.points) { $0.x == $1.x && $0.y == $1.y }
        }
    }

    /// The beacon markers' fill: no route, point or heatmap colour is this.
    package static let beaconColor = "#cc0077"

    /// A map as a surveyor plans on it: the floor-plan picture (faded) under
    /// the outline (or the plot's rectangle), axes and a scale bar in metres,
    /// measured points (dark dots, one per position, the count in its
    /// tooltip), registry beacons (labelled diamonds) and each route as a
    /// line of its own colour, dash and marker from a dot at its start, with
    /// its name there and a legend entry. Routes sharing a corridor are drawn
    /// side by side (`lanes`); labels are placed where they cover no mark and
    /// no other label (`SVGLabelPlacer`).
    package static func mapOverview(title: String, mapWidth: Double, mapHeight: Double, metersPerUnit: Double,
                                    outline: [(x: Double, y: Double)]?, floorPlan: FloorPlan?,
                                    points: [(x: Double, y: Double, count: Int)], beacons: [MapBeacon],
                                    routes: [MapRoute], axisOrigin: (x: Double, y: Double) = (0, 0), size: Int = 800) -> String {
        let left = 50.0, top = 40.0
        let w = Double(size) - left - 30, scale = w / max(mapWidth, 1)
        let h = mapHeight * scale
        let px = { (x: Double) in left + x * scale }, py = { (y: Double) in top + y * scale }
        var body = floorPlanImage(floorPlan, left: left, top: top, scale: scale, width: w, height: h, clipID: "map-area")
        body.append(outlineShape(outline, left: left, top: top, scale: scale, width: w, height: h))
        body += mapAxes(left: left, top: top, width: w, height: h, widthM: mapWidth * metersPerUnit,
                        heightM: mapHeight * metersPerUnit, origin: axisOrigin)
        var placer = SVGLabelPlacer(frame: .init(x0: left, y0: top, x1: left + w, y1: top + h))
        // The scale bar's corner is taken.
        placer.add(.box(.init(x0: left, y0: top + h - 40, x1: left + 170, y1: top + h)))
        let drawn = routes.filter { !$0.points.isEmpty }
        let pixels = drawn.map { $0.points.map { (x: px($0.x), y: py($0.y)) } }
        let lane = lanes(pixels)
        var starts: [(x: Double, y: Double)] = []
        for (i, route) in drawn.enumerated() {
            let style = seriesStyle(i)
            let line = offset(pixels[i], by: Double(lane[i]) * laneWidth)
            let start = line[0]
            starts.append(start)
            body.append("<g class=\"route\" fill=\"none\"><title>\(escape(route.name))</title>"
                + "<polyline points=\"\(line.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " "))\" \(strokeAttributes(style, width: 2)) stroke-linejoin=\"round\"/>"
                + "<circle class=\"route-start\" cx=\"\(f(start.x))\" cy=\"\(f(start.y))\" r=\"4.5\" fill=\"\(style.color)\" stroke=\"white\"/>"
                + markerIndexes(line.count, count: 6).dropFirst().map { marker(style, x: line[$0].x, y: line[$0].y, r: 3) }.joined()
                + "</g>")
            placer.add(polyline: line, width: 2)
            placer.add(.disc(x: start.x, y: start.y, r: 5))
        }
        for p in points {
            body.append("<circle class=\"point\" cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"3\" fill=\"#222\" stroke=\"white\" stroke-width=\"0.8\">"
                + "<title>(\(f(p.x)), \(f(p.y))): \(p.count) measurement\(p.count == 1 ? "" : "s")</title></circle>")
            placer.add(.disc(x: px(p.x), y: py(p.y), r: 3.4))
        }
        for b in beacons {
            let cx = px(b.x), cy = py(b.y), r = 7.0
            body.append("<path class=\"beacon\" d=\"\(diamond(cx, cy, r))\" "
                + "fill=\"\(beaconColor)\" stroke=\"white\" stroke-width=\"1\"><title>\(escape(b.label))</title></path>")
            placer.add(.disc(x: cx, y: cy, r: r))
        }
        // Labels last, when every mark is known: beacons' short names next to them, then the routes' at their starts.
        for b in beacons {
            let at = placer.place(b.label, near: px(b.x), py(b.y), gap: 9)
            body.append(SVGLabelPlacer.svg(b.label, at: at, color: beaconColor, cssClass: "beacon-label"))
        }
        for (i, route) in drawn.enumerated() {
            let at = placer.place(route.name, near: starts[i].x, starts[i].y, gap: 7)
            body.append(SVGLabelPlacer.svg(route.name, at: at, color: seriesStyle(i).color, cssClass: "route-name"))
        }
        body += scaleBar(left: left + 12, bottom: top + h - 14, pixelsPerMeter: scale / max(metersPerUnit, 1e-9),
                         widthM: mapWidth * metersPerUnit)
        body += overviewLegend(left: left, y: top + h + 56, routes: drawn.map(\.name))
        return document(width: size, height: Int(top + h + 72) + 18 * drawn.count, title: title, body)
    }

    /// A bar of a round length in metres (1, 2 or 5 × 10ⁿ, about a fifth of the plan's width).
    static func scaleBar(left: Double, bottom: Double, pixelsPerMeter: Double, widthM: Double) -> [String] {
        guard widthM > 0, pixelsPerMeter.isFinite, pixelsPerMeter > 0 else { return [] }
        let wanted = widthM / 5, magnitude = pow(10, log10(wanted).rounded(.down))
        let meters = [5.0, 2, 1].map { $0 * magnitude }.first { $0 <= wanted } ?? magnitude
        let length = meters * pixelsPerMeter
        let text = tickLabel(meters, step: meters) + " m"
        return ["<g class=\"scale-bar\">"
            + "<rect x=\"\(f(left - 4))\" y=\"\(f(bottom - 18))\" width=\"\(f(length + 8))\" height=\"26\" fill=\"white\" opacity=\"0.8\"/>"
            + "<path d=\"M\(f(left)) \(f(bottom - 4))V\(f(bottom))H\(f(left + length))V\(f(bottom - 4))\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/>"
            + "<text x=\"\(f(left + length / 2))\" y=\"\(f(bottom - 7))\" text-anchor=\"middle\">\(text)</text></g>"]
    }

    /// What the marks are, and a row a route: a sample of its line and marker, then its name.
    private static func overviewLegend(left: Double, y: Double, routes: [String]) -> [String] {
        var items = ["<g class=\"legend\">",
                     "<circle cx=\"\(f(left + 4))\" cy=\"\(f(y - 4))\" r=\"3\" fill=\"#222\"/>",
                     "<text x=\"\(f(left + 12))\" y=\"\(f(y))\">measured point</text>",
                     "<path d=\"M\(f(left + 124)) \(f(y - 10))l6 6l-6 6l-6 -6Z\" fill=\"\(beaconColor)\"/>",
                     "<text x=\"\(f(left + 134))\" y=\"\(f(y))\">beacon</text>"]
        if !routes.isEmpty {
            items.append("<circle cx=\"\(f(left + 200))\" cy=\"\(f(y - 4))\" r=\"4.5\" fill=\"#555\"/>")
            items.append("<text x=\"\(f(left + 210))\" y=\"\(f(y))\">a route's start; its line and marks:</text>")
        }
        for (i, name) in routes.enumerated() {
            items.append(legendEntry(seriesStyle(i), x: left, y: y + 18 * Double(i + 1), label: name))
        }
        return items + ["</g>"]
    }
}
