import FPCore
import Foundation

/// Small SVG charts, written as text (no GUI, no dependencies): a heatmap of
/// one transmitter over map positions, RSSI time series, and error CDF plus
/// box plot. Every string that reaches the SVG is XML-escaped.
package enum SVGPlot {
    package static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    static func document(width: Int, height: Int, title: String, _ body: [String]) -> String {
        (["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
          "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" font-family=\"sans-serif\" font-size=\"12\">",
          "<title>\(escape(title))</title>",
          "<rect width=\"\(width)\" height=\"\(height)\" fill=\"white\"/>",
          "<text x=\"10\" y=\"18\" font-size=\"14\">\(escape(title))</text>"] + body + ["</svg>"]).joined(separator: "\n") + "\n"
    }

    /// RSSI −100 … −40 dBm onto viridis: weak is dark purple, strong yellow.
    package static func color(rssi: Double) -> String {
        viridisColor((rssi - rssiRange.lowerBound) / (rssiRange.upperBound - rssiRange.lowerBound))
    }

    package struct HeatPoint: Sendable {
        package var x: Double, y: Double
        /// nil: the transmitter was not heard there
        package var rssi: Double?
        package var label: String
        package init(x: Double, y: Double, rssi: Double?, label: String) {
            self.x = x
            self.y = y
            self.rssi = rssi
            self.label = label
        }
    }

    /// Points at their map positions (x right, y down as on the floor plan),
    /// coloured by median RSSI over an interpolated surface (`Surface`: IDW
    /// on 1 m cells within 3 m of a point), drawn opaque so its colours are
    /// the colour bar's (the floor plan shows only where nothing was
    /// interpolated); grey crosses where the transmitter's radio was scanned
    /// but it was not heard (points whose radio was not scanned are left out
    /// by the caller). Axes in metres (`metersPerUnit`), a colour bar in dBm,
    /// the floor's `outline` (which clips the surface) or the plot's
    /// rectangle. `underlay`: an image (path or URL) drawn under the points,
    /// stretched to the map extent; `floorPlan`: the map's own picture,
    /// placed by its origin and scale. `shown`: the transmitter's own
    /// registry position (a large diamond); `beacons`: the map's other
    /// registry beacons (small hollow diamonds).
    package static func heatmap(title: String, points: [HeatPoint], mapWidth: Double, mapHeight: Double,
                               metersPerUnit: Double = MapScale.jBuilding.metersPerUnit, underlay: String? = nil,
                               outline: [(x: Double, y: Double)]? = nil, floorPlan: FloorPlan? = nil,
                               shown: MapBeacon? = nil, beacons: [MapBeacon] = [], axisOrigin: (x: Double, y: Double) = (0, 0),
                               size: Int = 800) -> String {
        let left = 50.0, top = 40.0
        let (w, h, scale) = mapArea(mapWidth: mapWidth, mapHeight: mapHeight, width: Double(size) - left - 70, height: 760)
        var body = floorPlanImage(floorPlan, left: left, top: top, scale: scale, width: w, height: h, clipID: "heatmap-area")
        if let underlay {
            body.append("<image x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(w))\" height=\"\(f(h))\" preserveAspectRatio=\"none\" xlink:href=\"\(escape(underlay))\" href=\"\(escape(underlay))\" opacity=\"0.6\"/>")
        }
        // The interpolated surface: 1 m cells, within 3 m of a measured point.
        let unitsPerMeter = 1 / max(metersPerUnit, 1e-9)
        body.append(areaClip(outline, id: "heatmap-floor", left: left, top: top, scale: scale, width: w, height: h))
        body += Surface(points: points, width: mapWidth, height: mapHeight, cell: unitsPerMeter, reach: 3 * unitsPerMeter,
                        outline: outline).svg(left: left, top: top, scale: scale, clipID: "heatmap-floor")
        body.append(outlineShape(outline, left: left, top: top, scale: scale, width: w, height: h))
        body += mapAxes(left: left, top: top, width: w, height: h, widthM: mapWidth * metersPerUnit,
                        heightM: mapHeight * metersPerUnit, origin: axisOrigin)
        var placer = SVGLabelPlacer(frame: .init(x0: left, y0: top, x1: left + w, y1: top + h))
        for p in points {
            let cx = left + p.x * scale, cy = top + p.y * scale
            placer.add(.disc(x: cx, y: cy, r: p.rssi == nil ? 4.5 : 6.8))
            if let r = p.rssi {
                body.append("<circle class=\"heard\" cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"6\" fill=\"\(color(rssi: r))\" stroke=\"white\" stroke-width=\"1.5\"><title>\(escape(p.label)): \(f(r)) dBm</title></circle>")
            } else {
                body.append("<path class=\"unheard\" d=\"M\(f(cx - 4)) \(f(cy - 4))L\(f(cx + 4)) \(f(cy + 4))M\(f(cx - 4)) \(f(cy + 4))L\(f(cx + 4)) \(f(cy - 4))\" stroke=\"#999\"><title>\(escape(p.label)): not heard</title></path>")
            }
        }
        body += heatmapBeacons(shown: shown, others: beacons, left: left, top: top, scale: scale, placer: &placer)
        body += colorBar(x: left + w + 16, top: top + 20, height: min(240, max(120, h - 20)))
        body += heatmapLegend(left: left, y: top + h + 56, shown: shown != nil, others: !beacons.isEmpty)
        return document(width: size, height: Int(top + h + 72), title: title, body)
    }

    /// The pixel size of a map drawn at most `width` × `height`, keeping its
    /// aspect, and the pixels per map unit.
    static func mapArea(mapWidth: Double, mapHeight: Double, width: Double, height: Double)
        -> (width: Double, height: Double, scale: Double)
    {
        let scale = min(width / max(mapWidth, 1e-9), height / max(mapHeight, 1e-9))
        return (mapWidth * scale, mapHeight * scale, scale)
    }

    /// Metre ticks along the bottom (x) and the left (y, downward as on the plan) of a map;
    /// `origin`: the metres at the top left corner (an imported dataset's data lie far from 0).
    static func mapAxes(left: Double, top: Double, width: Double, height: Double, widthM: Double, heightM: Double,
                        origin: (x: Double, y: Double) = (0, 0)) -> [String] {
        var lines = ["<g class=\"map-axes\" stroke=\"#000\">"]
        var labels: [String] = []
        for (m, label) in labelledTicks(origin.x, origin.x + widthM, target: 8) {
            let x = left + (m - origin.x) / max(widthM, 1e-9) * width
            lines.append("<line x1=\"\(f(x))\" y1=\"\(f(top + height))\" x2=\"\(f(x))\" y2=\"\(f(top + height + 5))\"/>")
            labels.append("<text x=\"\(f(x))\" y=\"\(f(top + height + 18))\" text-anchor=\"middle\">\(label)</text>")
        }
        for (m, label) in labelledTicks(origin.y, origin.y + heightM, target: 6) {
            let y = top + (m - origin.y) / max(heightM, 1e-9) * height
            lines.append("<line x1=\"\(f(left - 5))\" y1=\"\(f(y))\" x2=\"\(f(left))\" y2=\"\(f(y))\"/>")
            labels.append("<text x=\"\(f(left - 8))\" y=\"\(f(y + 4))\" text-anchor=\"end\">\(label)</text>")
        }
        lines.append("</g>")
        labels.append("<text x=\"\(f(left + width / 2))\" y=\"\(f(top + height + 36))\" text-anchor=\"middle\">x (m)</text>")
        labels.append("<text x=\"12\" y=\"\(f(top + height / 2))\" transform=\"rotate(-90 12 \(f(top + height / 2)))\" text-anchor=\"middle\">y (m)</text>")
        return lines + labels
    }

    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

    /// Axes with ticks for a plot area; returns the body lines and the mapping functions.
    static func axes(x0: Double, x1: Double, y0: Double, y1: Double, width: Double, height: Double, left: Double,
                     top: Double, xLabel: String, yLabel: String, xTicks: Bool = true)
        -> (lines: [String], px: (Double) -> Double, py: (Double) -> Double)
    {
        let px = { (v: Double) in left + (v - x0) / max(x1 - x0, 1e-9) * width }
        let py = { (v: Double) in top + height - (v - y0) / max(y1 - y0, 1e-9) * height }
        var lines = ["<g class=\"axes\" stroke=\"#000\">",
                     "<line x1=\"\(f(left))\" y1=\"\(f(top + height))\" x2=\"\(f(left + width))\" y2=\"\(f(top + height))\"/>",
                     "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + height))\"/>", "</g>"]
        // Ticks at 1-2-5 steps inside the ranges.
        for (xv, label) in xTicks ? labelledTicks(x0, x1) : [] {
            lines.append("<text x=\"\(f(px(xv)))\" y=\"\(f(top + height + 16))\" text-anchor=\"middle\">\(label)</text>")
        }
        for (yv, label) in labelledTicks(y0, y1) {
            lines.append("<text x=\"\(f(left - 6))\" y=\"\(f(py(yv) + 4))\" text-anchor=\"end\">\(label)</text>")
        }
        lines.append("<text x=\"\(f(left + width / 2))\" y=\"\(f(top + height + 34))\" text-anchor=\"middle\">\(escape(xLabel))</text>")
        lines.append("<text x=\"14\" y=\"\(f(top + height / 2))\" transform=\"rotate(-90 14 \(f(top + height / 2)))\" text-anchor=\"middle\">\(escape(yLabel))</text>")
        return (lines, px, py)
    }

    /// Per transmitter: its samples as faint dots and the rolling median of
    /// five as a line, over seconds from the measurement start, with a legend.
    package static func timeSeries(title: String, series: [(name: String, points: [(time: Int, rssi: Double)])]) -> String {
        let all = series.flatMap(\.points)
        let t1 = Double(all.map(\.time).max() ?? 1000) / 1000, lo = (all.map(\.rssi).min() ?? -100).rounded(.down) - 2
        let hi = (all.map(\.rssi).max() ?? -40).rounded(.up) + 2
        let (lines, px, py) = axes(x0: 0, x1: max(t1, 1), y0: lo, y1: hi, width: 600, height: 300, left: 60, top: 40,
                                   xLabel: "time (s)", yLabel: "RSSI (dBm)")
        var body = lines
        for (i, s) in series.enumerated() {
            let style = seriesStyle(i)
            let sorted = s.points.sorted { $0.time < $1.time }
            // Samples larger than the axis line's width, so a series at its edge still shows.
            let dots = sorted.map { "<circle cx=\"\(f(px(Double($0.time) / 1000)))\" cy=\"\(f(py($0.rssi)))\" r=\"2\"/>" }
            body.append("<g class=\"samples\" fill=\"\(style.color)\" opacity=\"0.35\">" + dots.joined() + "</g>")
            let medians = rollingMedian(sorted.map(\.rssi), window: 5)
            let xy = zip(sorted, medians).map { (px(Double($0.time) / 1000), py($1)) }
            let pts = xy.map { "\(f($0.0)),\(f($0.1))" }
            body.append("<polyline class=\"series\" fill=\"none\" \(strokeAttributes(style)) points=\"\(pts.joined(separator: " "))\"><title>\(escape(s.name))</title></polyline>")
            body.append("<g class=\"markers\">" + markerIndexes(xy.count).map { marker(style, x: xy[$0].0, y: xy[$0].1) }.joined() + "</g>")
            body.append(legendEntry(style, x: 680, y: Double(50 + i * 18), label: s.name))
        }
        return document(width: 920, height: max(400, 60 + series.count * 18), title: title, body)
    }

    /// Empirical CDF (step lines) of each result's errors and a box plot
    /// (quartiles by nearest rank, whiskers at min and max). A result's
    /// `total` counts the points it tried, located or not: its curve rises
    /// to the located share, never to 1 when some were not located, and the
    /// legend says "82 of 122 located".
    package static func errors(title: String, results: [(label: String, sortedErrors: [Double], total: Int)]) -> String {
        let maxError = max(1, results.flatMap(\.sortedErrors).max() ?? 1)
        let (lines, px, py) = axes(x0: 0, x1: maxError, y0: 0, y1: 1, width: 500, height: 300, left: 60, top: 40,
                                   xLabel: "error (m)", yLabel: "fraction of measurements")
        var body = lines
        for (i, r) in results.enumerated() {
            let style = seriesStyle(i)
            let n = Double(max(r.total, r.sortedErrors.count, 1))
            if !r.sortedErrors.isEmpty {
                var d = "M\(f(px(0))) \(f(py(0)))"
                var steps: [(Double, Double)] = []
                for (j, e) in r.sortedErrors.enumerated() {
                    d += "L\(f(px(e))) \(f(py(Double(j) / n)))L\(f(px(e))) \(f(py(Double(j + 1) / n)))"
                    steps.append((px(e), py(Double(j + 1) / n)))
                }
                // The curve stops at the largest error: the points beyond it were not located.
                body.append("<path class=\"cdf\" fill=\"none\" \(strokeAttributes(style)) d=\"\(d)\"><title>\(escape(r.label))</title></path>")
                body.append("<g class=\"markers\">" + markerIndexes(steps.count).map { marker(style, x: steps[$0].0, y: steps[$0].1) }.joined() + "</g>")
            }
            let located = "\(r.sortedErrors.count) of \(max(r.total, r.sortedErrors.count)) located"
            body.append(legendEntry(style, x: 580, y: Double(50 + i * 18), label: "\(r.label): \(located)"))
        }
        // Box plots under the CDF, one row each (labelled on the right), over an axis of their own.
        let boxTop = 400.0
        let bx = { (v: Double) in 60 + v / maxError * 500 }
        let boxAxisY = boxTop + Double(results.count) * 30 + 4
        let ticks = labelledTicks(0, maxError)
        var axis = ["<g class=\"box-axis\" stroke=\"#000\"><line x1=\"60\" y1=\"\(f(boxAxisY))\" x2=\"560\" y2=\"\(f(boxAxisY))\"/>"]
        for (t, _) in ticks {
            axis.append("<line x1=\"\(f(bx(t)))\" y1=\"\(f(boxAxisY))\" x2=\"\(f(bx(t)))\" y2=\"\(f(boxAxisY + 5))\"/>")
        }
        axis.append("</g>")
        for (t, label) in ticks {
            axis.append("<text x=\"\(f(bx(t)))\" y=\"\(f(boxAxisY + 18))\" text-anchor=\"middle\">\(label)</text>")
        }
        axis.append("<text x=\"310\" y=\"\(f(boxAxisY + 34))\" text-anchor=\"middle\">error (m)</text>")
        body += axis
        for (i, r) in results.enumerated() {
            let y = boxTop + Double(i) * 30
            let style = seriesStyle(i)
            body.append("<text class=\"box-label\" x=\"580\" y=\"\(f(y + 14))\">\(escape(r.label))</text>")
            let s = r.sortedErrors
            guard !s.isEmpty else {
                body.append("<text x=\"70\" y=\"\(f(y + 14))\" fill=\"#555\">none located</text>")
                continue
            }
            let q1 = ErrorSummary.nearestRank(s, 0.25)!, q3 = ErrorSummary.nearestRank(s, 0.75)!
            let med = Reduction.median(s)!
            body.append("<g class=\"box\" \(strokeAttributes(style))><title>\(escape(r.label))</title>"
                + "<line x1=\"\(f(bx(s.first!)))\" y1=\"\(f(y + 10))\" x2=\"\(f(bx(s.last!)))\" y2=\"\(f(y + 10))\"/>"
                + "<rect x=\"\(f(bx(q1)))\" y=\"\(f(y))\" width=\"\(f(max(1, bx(q3) - bx(q1))))\" height=\"20\" fill=\"white\"/>"
                + "<line x1=\"\(f(bx(med)))\" y1=\"\(f(y))\" x2=\"\(f(bx(med)))\" y2=\"\(f(y + 20))\" stroke-width=\"2\" stroke-dasharray=\"none\"/></g>")
            body.append(marker(style, x: bx(med), y: y + 10))
        }
        let legendWidth = (results.map { $0.label.count + 20 }.max() ?? 0) * 7
        return document(width: max(800, 600 + legendWidth), height: Int(boxTop) + results.count * 30 + 50, title: title, body)
    }

    /// A terminal sparkline: one block character per value, scaled between min and max.
    package static func sparkline(_ values: [Double]) -> String {
        let blocks = Array("▁▂▃▄▅▆▇█")
        guard let lo = values.min(), let hi = values.max() else { return "" }
        return String(values.map { v in
            hi == lo ? blocks[3] : blocks[min(7, Int(((v - lo) / (hi - lo) * 7).rounded()))]
        })
    }
}
