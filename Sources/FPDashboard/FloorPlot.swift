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
    static func svg(map: DashboardMap, points: [SurveyPoint], size: Int = 800,
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
        // A walk's points in their order: its track.
        var walks: [String: [SurveyPoint]] = [:]
        for p in points { if let s = p.session { walks[s, default: []].append(p) } }
        out.append("<g class=\"tracks\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" opacity=\"0.7\">")
        // Every walk gets its line, even of one point: the live view extends it as the walk syncs.
        for (session, walk) in walks.sorted(by: { $0.key < $1.key }) {
            let ordered = walk.sorted { ($0.seq ?? 0, $0.createdAtMs) < ($1.seq ?? 0, $1.createdAtMs) }
            let line = ordered.map { "\(frame.x($0.x)),\(frame.y($0.y))" }.joined(separator: " ")
            out.append("<polyline class=\"track\" data-session=\"\(SVGPlot.escape(session))\" points=\"\(line)\"><title>walk \(SVGPlot.escape(session))</title></polyline>")
        }
        out.append("</g><g class=\"points\">")
        for p in points.sorted(by: { $0.id < $1.id }) {
            out.append("<circle class=\"point\" data-id=\"\(SVGPlot.escape(p.id))\" cx=\"\(frame.x(p.x))\" cy=\"\(frame.y(p.y))\" r=\"4\" fill=\"#263238\"><title>\(SVGPlot.escape(p.id.prefix(8) + " by " + p.owner))</title></circle>")
        }
        out.append("</g></svg>")
        return out.joined(separator: "\n")
    }

    /// Metre ticks along the bottom and the left, as the plots draw them.
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
        return out + labels
    }
}
