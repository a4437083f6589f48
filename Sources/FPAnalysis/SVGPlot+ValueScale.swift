import Foundation

extension SVGPlot {
    /// A figure's colour scale: 0 … a round maximum, viridis with yellow at
    /// the better end (the top of download's, the bottom of delay's).
    package struct ValueScale: Sendable {
        /// "download", "round-trip time (UDP median)".
        package var name: String
        /// "Mbit/s", "ms", "%".
        package var unit: String
        package var higherIsBetter: Bool
        package var hi: Double

        /// The scale for `values`: from 0 to the first round tick at or past the largest.
        package init(name: String, unit: String, higherIsBetter: Bool, values: [Double]) {
            (self.name, self.unit, self.higherIsBetter) = (name, unit, higherIsBetter)
            let top = values.max() ?? 0
            guard top > 0 else { hi = 1; return }
            let ticks = niceTicks(0, top, target: 5)
            let step = ticks.count > 1 ? ticks[1] - ticks[0] : top
            hi = (top / step - 1e-9).rounded(.up) * step
        }

        /// 0 … 1 where 1 is the better end.
        func goodness(_ v: Double) -> Double {
            let t = max(0, min(1, v / hi))
            return higherIsBetter ? t : 1 - t
        }

        package func color(_ v: Double) -> String { viridisColor(goodness(v)) }

        /// "yellow is better: more Mbit/s".
        package var direction: String { "yellow is better: \(higherIsBetter ? "more" : "less") \(unit)" }

        /// "12.5 Mbit/s", "0.8 %".
        package func text(_ v: Double) -> String { String(format: v >= 100 ? "%.0f %@" : "%.1f %@", v, unit) }
    }

    /// A vertical colour bar of `scale`, the better end on top, with ticks and its unit.
    static func valueBar(_ scale: ValueScale, x: Double, top: Double, height: Double) -> [String] {
        var lines = ["<g class=\"colorbar\">"]
        let steps = 30
        for i in 0..<steps {
            let t0 = Double(i) / Double(steps)
            lines.append("<rect x=\"\(f(x))\" y=\"\(f(top + height * (1 - t0 - 1 / Double(steps))))\" width=\"14\" height=\"\(f(height / Double(steps) + 0.5))\" fill=\"\(viridisColor(t0 + 0.5 / Double(steps)))\"/>")
        }
        lines.append("<rect x=\"\(f(x))\" y=\"\(f(top))\" width=\"14\" height=\"\(f(height))\" fill=\"none\" stroke=\"#444\"/>")
        for (v, label) in labelledTicks(0, scale.hi, target: 5) {
            let y = top + height * (1 - scale.goodness(v))
            lines.append("<line x1=\"\(f(x + 14))\" y1=\"\(f(y))\" x2=\"\(f(x + 18))\" y2=\"\(f(y))\" stroke=\"#444\"/>")
            lines.append("<text x=\"\(f(x + 21))\" y=\"\(f(y + 4))\">\(label)</text>")
        }
        lines.append("<text class=\"unit\" x=\"\(f(x))\" y=\"\(f(top - 8))\">\(escape(scale.unit))</text>")
        lines.append("<text x=\"\(f(x))\" y=\"\(f(top + height + 16))\" font-size=\"10\">\(scale.higherIsBetter ? "▲ more is better" : "▲ less is better")</text>")
        lines.append("</g>")
        return lines
    }
}
