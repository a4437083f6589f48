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

    /// RSSI −100 … −40 dBm onto blue → red.
    package static func color(rssi: Double) -> String {
        let t = max(0, min(1, (rssi + 100) / 60))
        let r = Int((255 * t).rounded()), b = Int((255 * (1 - t)).rounded())
        return String(format: "#%02x40%02x", r, b)
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
    /// coloured by median RSSI; grey crosses where not heard. `underlay`: an
    /// image (path or URL) drawn under the points, stretched to the map extent.
    package static func heatmap(title: String, points: [HeatPoint], mapWidth: Double, mapHeight: Double,
                               underlay: String? = nil, size: Int = 800) -> String {
        let w = Double(size), scale = w / max(mapWidth, 1)
        let h = mapHeight * scale
        let top = 30.0
        var body: [String] = []
        if let underlay {
            body.append("<image x=\"0\" y=\"\(f(top))\" width=\"\(f(w))\" height=\"\(f(h))\" preserveAspectRatio=\"none\" xlink:href=\"\(escape(underlay))\" href=\"\(escape(underlay))\" opacity=\"0.6\"/>")
        }
        body.append("<rect x=\"0\" y=\"\(f(top))\" width=\"\(f(w))\" height=\"\(f(h))\" fill=\"none\" stroke=\"#888\"/>")
        for p in points {
            let cx = p.x * scale, cy = top + p.y * scale
            if let r = p.rssi {
                body.append("<circle class=\"heard\" cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"6\" fill=\"\(color(rssi: r))\"><title>\(escape(p.label)): \(f(r)) dBm</title></circle>")
            } else {
                body.append("<path class=\"unheard\" d=\"M\(f(cx - 4)) \(f(cy - 4))L\(f(cx + 4)) \(f(cy + 4))M\(f(cx - 4)) \(f(cy + 4))L\(f(cx + 4)) \(f(cy - 4))\" stroke=\"#999\"><title>\(escape(p.label)): not heard</title></path>")
            }
        }
        // Legend: −100 … −40 dBm.
        let ly = top + h + 20
        for i in 0...6 {
            let rssi = -100.0 + Double(i) * 10
            body.append("<rect x=\"\(10 + i * 40)\" y=\"\(f(ly))\" width=\"40\" height=\"12\" fill=\"\(color(rssi: rssi))\"/>")
            body.append("<text x=\"\(10 + i * 40)\" y=\"\(f(ly + 26))\">\(Int(rssi))</text>")
        }
        return document(width: size, height: Int(ly + 40), title: title, body)
    }

    static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

    /// Axes with ticks for a plot area; returns the body lines and the mapping functions.
    static func axes(x0: Double, x1: Double, y0: Double, y1: Double, width: Double, height: Double, left: Double,
                     top: Double, xLabel: String, yLabel: String) -> (lines: [String], px: (Double) -> Double, py: (Double) -> Double) {
        let px = { (v: Double) in left + (v - x0) / max(x1 - x0, 1e-9) * width }
        let py = { (v: Double) in top + height - (v - y0) / max(y1 - y0, 1e-9) * height }
        var lines = ["<g class=\"axes\" stroke=\"#000\">",
                     "<line x1=\"\(f(left))\" y1=\"\(f(top + height))\" x2=\"\(f(left + width))\" y2=\"\(f(top + height))\"/>",
                     "<line x1=\"\(f(left))\" y1=\"\(f(top))\" x2=\"\(f(left))\" y2=\"\(f(top + height))\"/>", "</g>"]
        for i in 0...4 {
            let xv = x0 + (x1 - x0) * Double(i) / 4, yv = y0 + (y1 - y0) * Double(i) / 4
            lines.append("<text x=\"\(f(px(xv)))\" y=\"\(f(top + height + 16))\" text-anchor=\"middle\">\(String(format: "%g", (xv * 100).rounded() / 100))</text>")
            lines.append("<text x=\"\(f(left - 6))\" y=\"\(f(py(yv) + 4))\" text-anchor=\"end\">\(String(format: "%g", (yv * 100).rounded() / 100))</text>")
        }
        lines.append("<text x=\"\(f(left + width / 2))\" y=\"\(f(top + height + 34))\" text-anchor=\"middle\">\(escape(xLabel))</text>")
        lines.append("<text x=\"14\" y=\"\(f(top + height / 2))\" transform=\"rotate(-90 14 \(f(top + height / 2)))\" text-anchor=\"middle\">\(escape(yLabel))</text>")
        return (lines, px, py)
    }

    /// One polyline per transmitter: RSSI over ms from the measurement start.
    package static func timeSeries(title: String, series: [(name: String, points: [(time: Int, rssi: Double)])]) -> String {
        let all = series.flatMap(\.points)
        let t1 = Double(all.map(\.time).max() ?? 1), lo = (all.map(\.rssi).min() ?? -100).rounded(.down) - 2
        let hi = (all.map(\.rssi).max() ?? -40).rounded(.up) + 2
        let (lines, px, py) = axes(x0: 0, x1: max(t1, 1), y0: lo, y1: hi, width: 600, height: 300, left: 60, top: 40,
                                   xLabel: "time (ms)", yLabel: "RSSI (dBm)")
        var body = lines
        for (i, s) in series.enumerated() {
            let color = palette[i % palette.count]
            let pts = s.points.sorted { $0.time < $1.time }.map { "\(f(px(Double($0.time)))),\(f(py($0.rssi)))" }
            body.append("<polyline class=\"series\" fill=\"none\" stroke=\"\(color)\" points=\"\(pts.joined(separator: " "))\"><title>\(escape(s.name))</title></polyline>")
            body.append("<text x=\"680\" y=\"\(50 + i * 16)\" fill=\"\(color)\">\(escape(s.name))</text>")
        }
        return document(width: 900, height: max(400, 60 + series.count * 16), title: title, body)
    }

    /// Empirical CDF (step lines) of each result's errors and a box plot
    /// (quartiles by nearest rank, whiskers at min and max).
    package static func errors(title: String, results: [(label: String, sortedErrors: [Double])]) -> String {
        let maxError = max(1, results.flatMap(\.sortedErrors).max() ?? 1)
        let (lines, px, py) = axes(x0: 0, x1: maxError, y0: 0, y1: 1, width: 500, height: 300, left: 60, top: 40,
                                   xLabel: "error (m)", yLabel: "fraction of measurements")
        var body = lines
        for (i, r) in results.enumerated() where !r.sortedErrors.isEmpty {
            let color = palette[i % palette.count]
            var d = "M\(f(px(0))) \(f(py(0)))"
            let n = Double(r.sortedErrors.count)
            for (j, e) in r.sortedErrors.enumerated() {
                d += "L\(f(px(e))) \(f(py(Double(j) / n)))L\(f(px(e))) \(f(py(Double(j + 1) / n)))"
            }
            body.append("<path class=\"cdf\" fill=\"none\" stroke=\"\(color)\" d=\"\(d)\"><title>\(escape(r.label))</title></path>")
            body.append("<text x=\"580\" y=\"\(50 + i * 16)\" fill=\"\(color)\">\(escape(r.label))</text>")
        }
        // Box plots under the CDF, one row each.
        let boxTop = 400.0
        let bx = { (v: Double) in 60 + v / maxError * 500 }
        for (i, r) in results.enumerated() where !r.sortedErrors.isEmpty {
            let s = r.sortedErrors
            let q1 = ErrorSummary.nearestRank(s, 0.25)!, q3 = ErrorSummary.nearestRank(s, 0.75)!
            let med = Reduction.median(s)!
            let y = boxTop + Double(i) * 30
            let color = palette[i % palette.count]
            body.append("<g class=\"box\" stroke=\"\(color)\"><title>\(escape(r.label))</title>"
                + "<line x1=\"\(f(bx(s.first!)))\" y1=\"\(f(y + 10))\" x2=\"\(f(bx(s.last!)))\" y2=\"\(f(y + 10))\"/>"
                + "<rect x=\"\(f(bx(q1)))\" y=\"\(f(y))\" width=\"\(f(max(1, bx(q3) - bx(q1))))\" height=\"20\" fill=\"white\"/>"
                + "<line x1=\"\(f(bx(med)))\" y1=\"\(f(y))\" x2=\"\(f(bx(med)))\" y2=\"\(f(y + 20))\" stroke-width=\"2\"/></g>")
        }
        return document(width: 800, height: Int(boxTop) + results.count * 30 + 20, title: title, body)
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
