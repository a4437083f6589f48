import Foundation

extension SVGPlot {
    /// One slot of a bucket chart: a calendar period, its values' summary
    /// (nil: no value then, the slot stays empty) and where a click leads.
    package struct BucketSlot: Sendable {
        package var label: String
        /// "Nov 28 2026": the period in full, for the bar's tooltip.
        package var title: String
        package var summary: TimeBucketSummary?
        package var link: String?
        package init(label: String, title: String, summary: TimeBucketSummary?, link: String?) {
            (self.label, self.title, self.summary, self.link) = (label, title, summary, link)
        }
    }

    /// A limit drawn across a chart: its value in the chart's unit, its short
    /// name (beside the line) and what it is (in the legend).
    package struct LimitLine: Sendable {
        package var value: Double
        package var name: String
        package var label: String
        package init(value: Double, name: String, label: String) {
            (self.value, self.name, self.label) = (value, name, label)
        }
    }

    /// A figure per calendar period: per slot a bar from the least to the
    /// greatest value with the median marked and the count above it, each bar
    /// a link (`slot.link`: the period opened into finer ones); limits as
    /// dashed red lines; the y axis from 0 in `scale`'s unit (up to the
    /// highest limit too), `caption` under the time axis (the time zone).
    package static func bucketChart(title: String, slots: [BucketSlot], scale valueScale: ValueScale, limits: [LimitLine],
                                    caption: String) -> String {
        // Room above the highest bar for its count, and right of the plot for the limits' names.
        let left = 70.0, top = 52.0, height = 300.0
        let slot = max(14.0, 720.0 / Double(max(slots.count, 1)))
        let width = slot * Double(max(slots.count, 1))
        let hi = max(valueScale.hi, (limits.map(\.value).max() ?? 0) * 1.1)
        let (lines, _, py) = axes(x0: 0, x1: 1, y0: 0, y1: hi, width: width, height: height, left: left, top: top,
                                  xLabel: "", yLabel: "\(valueScale.name) (\(valueScale.unit))", xTicks: false)
        var body = lines
        // Labels of narrow slots lean, and only every n-th is written so they never overlap.
        let every = Int((44 / slot).rounded(.up))
        for (i, s) in slots.enumerated() {
            let x0 = left + Double(i) * slot, mid = x0 + slot / 2
            if i % every == 0 {
                body.append("<line x1=\"\(f(mid))\" y1=\"\(f(top + height))\" x2=\"\(f(mid))\" y2=\"\(f(top + height + 4))\" stroke=\"#000\"/>")
                body.append("<text class=\"bucket-label\" x=\"\(f(mid))\" y=\"\(f(top + height + 14))\" text-anchor=\"end\" transform=\"rotate(-35 \(f(mid)) \(f(top + height + 14)))\">\(escape(s.label))</text>")
            }
            guard let b = s.summary else { continue }
            let barWidth = min(36, max(6, slot * 0.5)), yMin = py(b.min), yMax = py(b.max), yMedian = py(b.median)
            let tip = "\(s.title): \(b.count == 1 ? "1 run" : "\(b.count) runs"), min \(valueScale.text(b.min)), "
                + "median \(valueScale.text(b.median)), max \(valueScale.text(b.max))" + (s.link == nil ? "" : " (click for finer)")
            var bar = ["<g class=\"bucket\" data-count=\"\(b.count)\" data-median=\"\(String(format: "%g", b.median))\" data-label=\"\(escape(s.label))\"><title>\(escape(tip))</title>",
                       // A clear target the whole slot high, so a thin bar is easy to click.
                       "<rect class=\"hit\" x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(slot))\" height=\"\(f(height))\" fill=\"#fff\" fill-opacity=\"0\"/>",
                       "<rect class=\"range\" x=\"\(f(mid - barWidth / 2))\" y=\"\(f(yMax))\" width=\"\(f(barWidth))\" height=\"\(f(max(yMin - yMax, 1.5)))\" fill=\"\(palette[0])\" fill-opacity=\"0.35\" stroke=\"\(palette[0])\"/>",
                       "<line class=\"median\" x1=\"\(f(mid - barWidth / 2 - 3))\" y1=\"\(f(yMedian))\" x2=\"\(f(mid + barWidth / 2 + 3))\" y2=\"\(f(yMedian))\" stroke=\"#000\" stroke-width=\"2.5\"/>",
                       "</g>"]
            // Counts over narrow slots would run into each other: the tooltip still has them.
            if slot >= 20 {
                bar.insert("<text class=\"count\" x=\"\(f(mid))\" y=\"\(f(yMax - 4))\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">\(b.count)</text>", at: bar.count - 1)
            }
            if let link = s.link {
                bar[0] = "<a class=\"bucket-link\" href=\"\(escape(link))\">" + bar[0]
                bar[bar.count - 1] += "</a>"
            }
            body += bar
        }
        for (i, limit) in limits.enumerated() {
            let y = py(limit.value)
            body.append("<g class=\"limit\" data-value=\"\(String(format: "%g", limit.value))\"><title>\(escape(limit.label))</title>"
                + "<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(left + width + 6))\" y2=\"\(f(y))\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
                + "<text x=\"\(f(left + width + 10))\" y=\"\(f(y + 4 + Double(i % 2) * 12))\" fill=\"#d62728\" font-size=\"11\">\(escape(limit.name))</text></g>")
        }
        let y = top + height + 62
        body += ["<text class=\"time-caption\" x=\"\(f(left))\" y=\"\(f(y))\">\(escape(caption))</text>",
                 "<g class=\"legend\">",
                 "<rect x=\"\(f(left))\" y=\"\(f(y + 10))\" width=\"8\" height=\"14\" fill=\"\(palette[0])\" fill-opacity=\"0.35\" stroke=\"\(palette[0])\"/>",
                 "<line x1=\"\(f(left - 3))\" y1=\"\(f(y + 17))\" x2=\"\(f(left + 11))\" y2=\"\(f(y + 17))\" stroke=\"#000\" stroke-width=\"2.5\"/>",
                 "<text x=\"\(f(left + 18))\" y=\"\(f(y + 21))\">least to greatest, the median marked\(slot >= 20 ? ", the runs above" : "")</text>",
                 "<text class=\"direction\" x=\"\(f(left + 380))\" y=\"\(f(y + 21))\">\(valueScale.higherIsBetter ? "more" : "less") is better</text>",
                 "</g>"]
        // Each limit in full under the legend: the rule, its figure, comparison, limit and scope.
        for (i, limit) in limits.enumerated() {
            let ly = y + 42 + Double(i) * 16
            body.append("<line x1=\"\(f(left - 3))\" y1=\"\(f(ly - 4))\" x2=\"\(f(left + 11))\" y2=\"\(f(ly - 4))\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>")
            body.append("<text class=\"limit-label\" x=\"\(f(left + 18))\" y=\"\(f(ly))\">limit \(escape(limit.label))</text>")
        }
        return document(width: Int(max(800, left + width + 130)), height: Int(y + 34 + Double(limits.count) * 16), title: title, body)
    }
}
