import FPAnalysis
import FPCore
import Foundation

/// The floor with every measured point and the walks through them, as an
/// inline SVG. Its `data-left/top/scale` and the `g.points` layer are what
/// the live view's script needs to add a point that syncs in later.
enum FloorPlot {
    struct Frame {
        var left = 50.0, top = 20.0
        var width: Double, height: Double, scale: Double
        var mapWidth: Double, mapHeight: Double

        init(map: DashboardMap, points: [SurveyPoint], size: Int) {
            // The configured extent, else the points' own with a margin, grown to hold the plan's picture.
            let plan = map.floorPlan
            mapWidth = map.width ?? max(100, (points.map(\.x).max() ?? 0) * 1.1, plan.map { $0.x + $0.width } ?? 0)
            mapHeight = map.height ?? max(100, (points.map(\.y).max() ?? 0) * 1.1, plan.map { $0.y + $0.height } ?? 0)
            width = Double(size) - left - 20
            scale = width / mapWidth
            height = mapHeight * scale
        }

        func x(_ v: Double) -> String { String(format: "%.1f", left + v * scale) }
        func y(_ v: Double) -> String { String(format: "%.1f", top + v * scale) }
    }

    /// `under`: more layers drawn over the floor, below the walks and points (the Survey page's cells).
    /// `beacons`: the map's registry, drawn as diamonds a link can point at (`#beacon-…`).
    static func svg(map: DashboardMap, points: [SurveyPoint], beacons: [BeaconRegistry.Entry] = [], size: Int = 800,
                    under: (Frame) -> [String] = { _ in [] }) -> String {
        let frame = Frame(map: map, points: points, size: size)
        let total = Int(frame.top + frame.height + 45)
        var out = ["<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"floor\" width=\"\(size)\" height=\"\(total)\" viewBox=\"0 0 \(size) \(total)\" font-family=\"sans-serif\" font-size=\"12\" data-left=\"\(frame.left)\" data-top=\"\(frame.top)\" data-scale=\"\(frame.scale)\">",
                   "<title>\(SVGPlot.escape(map.id)): \(points.count) points</title>"]
        // Over the plan's picture the floor is not filled, so the picture shows.
        out += SVGPlot.floorPlanImage(map.floorPlan, left: frame.left, top: frame.top, scale: frame.scale,
                                      width: frame.width, height: frame.height, clipID: "floor-area")
        let fill = map.floorPlan == nil ? "#eef2f5" : "none"
        if let outline = map.outline {
            let corners = outline.map { "\(frame.x($0.x)),\(frame.y($0.y))" }.joined(separator: " ")
            out.append("<polygon class=\"outline\" points=\"\(corners)\" fill=\"\(fill)\" stroke=\"#263238\" stroke-width=\"2\"/>")
        } else {
            out.append("<rect class=\"outline\" x=\"\(frame.left)\" y=\"\(frame.top)\" width=\"\(String(format: "%.1f", frame.width))\" height=\"\(String(format: "%.1f", frame.height))\" fill=\"\(fill)\" stroke=\"#90a4ae\"/>")
        }
        out += axes(frame, metersPerUnit: map.metersPerUnit)
        out += under(frame)
        out.append("<g class=\"tracks\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2.5\" opacity=\"0.85\">")
        // Every walk gets its line and style, even of one point: the live view extends it as the walk syncs.
        for walk in walks(points) {
            let line = walk.points.map { "\(frame.x($0.x)),\(frame.y($0.y))" }.joined(separator: " ")
            out.append("<polyline class=\"track\" data-session=\"\(SVGPlot.escape(walk.session))\" \(strokeAttributes(walk.style)) transform=\"translate(\(walk.offset) \(walk.offset))\" points=\"\(line)\"><title>\(SVGPlot.escape(walk.label))</title></polyline>")
        }
        out.append("</g><g class=\"points\">")
        for p in points.sorted(by: { $0.id < $1.id }) {
            out.append("<circle class=\"point\" data-id=\"\(SVGPlot.escape(p.id))\" cx=\"\(frame.x(p.x))\" cy=\"\(frame.y(p.y))\" r=\"4\" fill=\"#263238\"><title>\(SVGPlot.escape(p.id.prefix(8) + " by " + p.owner))</title></circle>")
        }
        out.append("</g><g class=\"beacons\">")
        for b in beacons {
            let cx = frame.left + b.x * frame.scale, cy = frame.top + b.y * frame.scale
            let diamond = String(format: "M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ", cx, cy - 7, cx + 7, cy, cx, cy + 7, cx - 7, cy)
            let name = b.name.map { " " + $0 } ?? ""
            out.append("<g class=\"beacon\" id=\"\(beaconAnchor(b.id))\"><path d=\"\(diamond)\" fill=\"#fdd835\" stroke=\"#263238\" stroke-width=\"1\"/><title>beacon \(SVGPlot.escape(b.id + name)) at (\(String(format: "%g, %g", b.x, b.y)))</title></g>")
        }
        out.append("</g></svg>")
        return out.joined(separator: "\n")
    }

    /// A beacon's element id on a map page (a MAC's colons are not welcome in a URL fragment).
    /// An entry's id: a MAC without its colons, an advertised identity with dashes for them.
    static func beaconAnchor(_ id: String) -> String {
        BeaconIdentity.mac(id) != nil ? "beacon-" + id.uppercased().filter { $0 != ":" }
            : "beacon-" + id.replacingOccurrences(of: ":", with: "-")
    }

    struct Walk {
        var session: String
        var points: [SurveyPoint]
        /// The plots' series style of its place among the walks: colour and dash.
        var style: SVGPlot.SeriesStyle
        /// Pixels its line is moved right and down, so walks of one route lie side by side, not on top.
        var offset: Int
        /// "walk 1a2b3c4d by carol, 2026-11-20 10:04, 27 points"
        var label: String
    }

    /// Walks in turn: on the route, then 3 px to either side, then 6.
    static let walkOffsets = [0, 3, -3, 6, -6]

    /// `stroke` and, for all but the first style, `stroke-dasharray`.
    static func strokeAttributes(_ style: SVGPlot.SeriesStyle) -> String {
        "stroke=\"\(style.color)\"" + (style.dash.map { " stroke-dasharray=\"\($0)\"" } ?? "")
    }

    /// A legend's sample of a walk's line, as drawn on the floor.
    static func legendSample(_ style: SVGPlot.SeriesStyle) -> String {
        "<svg class=\"sample\" width=\"32\" height=\"10\" viewBox=\"0 0 32 10\" aria-hidden=\"true\"><line x1=\"0\" y1=\"5\" x2=\"32\" y2=\"5\" stroke-width=\"2.5\" \(strokeAttributes(style))/></svg>"
    }

    /// The walks among `points`, each in its order, first walked first; more walks than styles share them.
    static func walks(_ points: [SurveyPoint]) -> [Walk] {
        var bySession: [String: [SurveyPoint]] = [:]
        for p in points { if let s = p.session { bySession[s, default: []].append(p) } }
        let ordered = bySession.map { session, list in
            (session, list.sorted { ($0.seq ?? 0, $0.createdAtMs) < ($1.seq ?? 0, $1.createdAtMs) })
        }.sorted { ($0.1.first?.createdAtMs ?? 0, $0.0) < ($1.1.first?.createdAtMs ?? 0, $1.0) }
        return ordered.enumerated().map { i, walk in
            let (session, list) = walk
            let owners = Set(list.map(\.owner)).subtracting([MeasurementDocument.unsignedOwner]).sorted()
            let when = Pages.time(list.first?.createdAtMs ?? 0)
            let label = "walk \(session.prefix(8))" + (owners.isEmpty ? "" : " by " + owners.joined(separator: ", "))
                + (when.isEmpty ? "" : ", \(when)") + ", \(list.count) points"
            return Walk(session: session, points: list, style: SVGPlot.seriesStyle(i), offset: walkOffsets[i % walkOffsets.count],
                        label: label)
        }
    }

    /// Metre ticks along the bottom and the left, as the plots draw them, each axis named.
    static func axes(_ frame: Frame, metersPerUnit: Double) -> [String] {
        var out = ["<g class=\"map-axes\" stroke=\"#000\">"]
        var labels: [String] = []
        let bottom = frame.top + frame.height
        for m in SVGPlot.niceTicks(0, frame.mapWidth * metersPerUnit, target: 8) {
            let x = frame.x(m / metersPerUnit)
            out.append("<line x1=\"\(x)\" y1=\"\(bottom)\" x2=\"\(x)\" y2=\"\(bottom + 5)\"/>")
            labels.append("<text x=\"\(x)\" y=\"\(bottom + 18)\" text-anchor=\"middle\">\(String(format: "%g", m))</text>")
        }
        for m in SVGPlot.niceTicks(0, frame.mapHeight * metersPerUnit, target: 6) {
            let y = frame.y(m / metersPerUnit)
            out.append("<line x1=\"\(frame.left - 5)\" y1=\"\(y)\" x2=\"\(frame.left)\" y2=\"\(y)\"/>")
            labels.append("<text x=\"\(frame.left - 8)\" y=\"\(y)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(String(format: "%g", m))</text>")
        }
        out.append("</g>")
        labels.append("<text x=\"\(frame.left + frame.width / 2)\" y=\"\(bottom + 36)\" text-anchor=\"middle\">x (m)</text>")
        // The y axis's name, upright along it, left of its tick labels (y grows downwards, as on the plan).
        let middle = String(format: "%.1f", frame.top + frame.height / 2)
        labels.append("<text class=\"y-label\" x=\"12\" y=\"\(middle)\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(middle))\">y (m)</text>")
        return out + labels
    }
}
