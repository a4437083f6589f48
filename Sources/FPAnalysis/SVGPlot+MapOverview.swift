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
    /// coloured line from a dot at its start, with its name there.
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
        // Names placed so far (left, right, baseline): routes starting side by side get their names stacked.
        var placed: [(Double, Double, Double)] = []
        for (i, route) in routes.enumerated() where !route.points.isEmpty {
            let color = palette[i % palette.count]
            let line = route.points.map { "\(f(px($0.x))),\(f(py($0.y)))" }.joined(separator: " ")
            let start = route.points[0]
            body.append("<g class=\"route\" stroke=\"\(color)\" fill=\"none\"><title>\(escape(route.name))</title>"
                + "<polyline points=\"\(line)\" stroke-width=\"2.5\" stroke-linejoin=\"round\" opacity=\"0.85\"/>"
                + "<circle cx=\"\(f(px(start.x)))\" cy=\"\(f(py(start.y)))\" r=\"4\" fill=\"\(color)\"/></g>")
            let span = Double(route.name.count) * 6.2 + 14
            let from = min(px(start.x) - 7, left + w - span), to = from + span
            var y = py(start.y) - 7
            while placed.contains(where: { $0.0 < to && from < $0.1 && abs($0.2 - y) < 12 }) { y -= 13 }
            placed.append((from, to, y))
            body.append(label(route.name, x: px(start.x), y: y, color: color, cssClass: "route-name", within: left + w))
        }
        for p in points {
            body.append("<circle class=\"point\" cx=\"\(f(px(p.x)))\" cy=\"\(f(py(p.y)))\" r=\"3\" fill=\"#222\" stroke=\"white\" stroke-width=\"0.8\">"
                + "<title>(\(f(p.x)), \(f(p.y))): \(p.count) measurement\(p.count == 1 ? "" : "s")</title></circle>")
        }
        for b in beacons {
            let cx = px(b.x), cy = py(b.y), r = 7.0
            body.append("<path class=\"beacon\" d=\"M\(f(cx)) \(f(cy - r))L\(f(cx + r)) \(f(cy))L\(f(cx)) \(f(cy + r))L\(f(cx - r)) \(f(cy))Z\" "
                + "fill=\"\(beaconColor)\" stroke=\"white\" stroke-width=\"1\"><title>\(escape(b.label))</title></path>")
            body.append(label(b.label, x: cx + 9, y: cy + 4, color: beaconColor, cssClass: "beacon-label"))
        }
        body += scaleBar(left: left + 12, bottom: top + h - 14, pixelsPerMeter: scale / max(metersPerUnit, 1e-9),
                         widthM: mapWidth * metersPerUnit)
        body += overviewLegend(left: left, y: top + h + 56, routes: !routes.isEmpty)
        return document(width: size, height: Int(top + h + 72), title: title, body)
    }

    /// Text with a white halo, readable over the plan and the lines under it.
    /// `within`: the right edge it must end before; a label that would run
    /// past it is put to the left of `x` instead of 7 px right of it.
    static func label(_ text: String, x: Double, y: Double, color: String, cssClass: String, within: Double? = nil) -> String {
        // About 6.2 px a character at 11 px sans-serif.
        let leftward = within.map { x + 7 + Double(text.count) * 6.2 > $0 } ?? false
        let at = within == nil ? x : leftward ? x - 7 : x + 7
        return "<text class=\"\(cssClass)\" x=\"\(f(at))\" y=\"\(f(y))\" fill=\"\(color)\" font-size=\"11\" stroke=\"white\" "
            + "stroke-width=\"3\" paint-order=\"stroke\"\(leftward ? " text-anchor=\"end\"" : "")>\(escape(text))</text>"
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

    private static func overviewLegend(left: Double, y: Double, routes: Bool) -> [String] {
        var items = ["<g class=\"legend\">",
                     "<circle cx=\"\(f(left + 4))\" cy=\"\(f(y - 4))\" r=\"3\" fill=\"#222\"/>",
                     "<text x=\"\(f(left + 12))\" y=\"\(f(y))\">measured point</text>",
                     "<path d=\"M\(f(left + 124)) \(f(y - 10))l6 6l-6 6l-6 -6Z\" fill=\"\(beaconColor)\"/>",
                     "<text x=\"\(f(left + 134))\" y=\"\(f(y))\">beacon</text>"]
        if routes {
            items.append("<line x1=\"\(f(left + 196))\" y1=\"\(f(y - 4))\" x2=\"\(f(left + 216))\" y2=\"\(f(y - 4))\" stroke=\"\(palette[0])\" stroke-width=\"2.5\"/>")
            items.append("<text x=\"\(f(left + 222))\" y=\"\(f(y))\">route (from the dot)</text>")
        }
        return items + ["</g>"]
    }
}
