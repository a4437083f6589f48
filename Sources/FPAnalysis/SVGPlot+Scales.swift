import Foundation

extension SVGPlot {
    /// Tick values at 1, 2 or 5 × 10ⁿ apart inside `lo…hi`: the finest such
    /// step with at most `target + 1` intervals. −100, −90, … dBm or 0, 1,
    /// 2 … s, never −60.75 or 4996.5.
    package static func niceTicks(_ lo: Double, _ hi: Double, target: Int = 5) -> [Double] {
        guard lo.isFinite, hi.isFinite, hi > lo, target > 0 else { return lo.isFinite ? [lo] : [] }
        let span = hi - lo, most = Double(target + 1)
        let magnitude = pow(10, (log10(span / most)).rounded(.down))
        let step = [1.0, 2, 5, 10, 20, 50].map { $0 * magnitude }.first { span / $0 <= most + 1e-9 } ?? 100 * magnitude
        // k × step, rounded to the step's decimals: 0.3, not 0.30000000000000004.
        let digits = pow(10, max(0, -(log10(step)).rounded(.down)))
        let first = Int((lo / step - 1e-9).rounded(.up)), last = Int((hi / step + 1e-9).rounded(.down))
        guard first <= last else { return [] }
        return (first...last).map { k in
            let v = (Double(k) * step * digits).rounded() / digits
            return v == 0 ? 0 : v
        }
    }

    /// `niceTicks` with each value's text.
    static func labelledTicks(_ lo: Double, _ hi: Double, target: Int = 5) -> [(value: Double, label: String)] {
        let ticks = niceTicks(lo, hi, target: target)
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        return ticks.map { ($0, tickLabel($0, step: step)) }
    }

    /// A tick's text: as few digits as its step needs.
    static func tickLabel(_ v: Double, step: Double) -> String {
        let decimals = max(0, Int((-log10(step)).rounded(.up)))
        return String(format: "%.\(decimals)f", v)
    }

    /// The viridis colour map (perceptually uniform, readable in grey and by
    /// most colour-blind readers), sampled at nine points and interpolated.
    static let viridis: [(Double, Double, Double)] = [
        (68, 1, 84), (71, 45, 123), (59, 82, 139), (44, 114, 142), (33, 145, 140),
        (39, 173, 129), (92, 200, 99), (170, 220, 50), (253, 231, 37),
    ]

    /// 0 … 1 onto viridis, dark purple to yellow.
    static func viridisColor(_ t: Double) -> String {
        let t = max(0, min(1, t.isFinite ? t : 0)) * Double(viridis.count - 1)
        let i = min(viridis.count - 2, Int(t))
        let f = t - Double(i)
        let (a, b) = (viridis[i], viridis[i + 1])
        func mix(_ x: Double, _ y: Double) -> Int { Int((x + (y - x) * f).rounded()) }
        return String(format: "#%02x%02x%02x", mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
    }

    /// A vertical colour bar for −100 … −40 dBm with its ticks and unit.
    static func colorBar(x: Double, top: Double, height: Double) -> [String] {
        var lines = ["<g class=\"colorbar\">"]
        let steps = 30
        for i in 0..<steps {
            let t0 = Double(i) / Double(steps)
            lines.append("<rect x=\"\(f(x))\" y=\"\(f(top + height * (1 - t0 - 1 / Double(steps))))\" width=\"14\" height=\"\(f(height / Double(steps) + 0.5))\" fill=\"\(viridisColor(t0 + 0.5 / Double(steps)))\"/>")
        }
        lines.append("<rect x=\"\(f(x))\" y=\"\(f(top))\" width=\"14\" height=\"\(f(height))\" fill=\"none\" stroke=\"#444\"/>")
        for dBm in niceTicks(rssiRange.lowerBound, rssiRange.upperBound, target: 6) {
            let y = top + height * (1 - (dBm - rssiRange.lowerBound) / (rssiRange.upperBound - rssiRange.lowerBound))
            lines.append("<line x1=\"\(f(x + 14))\" y1=\"\(f(y))\" x2=\"\(f(x + 18))\" y2=\"\(f(y))\" stroke=\"#444\"/>")
            lines.append("<text x=\"\(f(x + 21))\" y=\"\(f(y + 4))\">\(Int(dBm))</text>")
        }
        lines.append("<text x=\"\(f(x))\" y=\"\(f(top - 8))\">dBm</text>")
        lines.append("</g>")
        return lines
    }

    /// The RSSI span the heatmap's colours cover.
    static let rssiRange = -100.0 ... -40.0

    /// Medians of each run of `window` consecutive values (shorter at the ends).
    static func rollingMedian(_ values: [Double], window: Int) -> [Double] {
        let half = max(0, window / 2)
        return values.indices.map { i in
            Reduction.median(Array(values[max(0, i - half)...min(values.count - 1, i + half)]))!
        }
    }
}
