import Foundation

extension SVGPlot {
    /// One probe on the time axis: when it started (seconds since 1970) and
    /// its figure (nil: the phase that gives it did not end `ok`).
    package struct ProbeSample: Sendable {
        package var time: Double
        package var value: Double?
        package var label: String
        package init(time: Double, value: Double?, label: String) {
            (self.time, self.value, self.label) = (time, value, label)
        }
    }

    /// A figure over time: one dot per probe, joined in time order, over a
    /// UTC time axis (`timeTicks`) and a y axis from 0 in the figure's unit;
    /// grey crosses on the time axis for probes without the figure.
    package static func probeSeries(title: String, samples: [ProbeSample], scale valueScale: ValueScale) -> String {
        let sorted = samples.sorted { $0.time < $1.time }
        var t0 = sorted.first?.time ?? 0, t1 = sorted.last?.time ?? 60
        if t1 - t0 < 120 { (t0, t1) = ((t0 + t1) / 2 - 60, (t0 + t1) / 2 + 60) }  // one probe, or a burst: ±1 min
        let pad = (t1 - t0) * 0.03
        (t0, t1) = (t0 - pad, t1 + pad)
        let left = 70.0, top = 40.0, width = 700.0, height = 320.0
        let (lines, px, py) = axes(x0: t0, x1: t1, y0: 0, y1: valueScale.hi, width: width, height: height, left: left, top: top,
                                   xLabel: "", yLabel: "\(valueScale.name) (\(valueScale.unit))", xTicks: false)
        var body = lines
        let time = timeTicks(t0, t1)
        body.append("<g class=\"time-axis\" stroke=\"#000\">")
        for (t, _) in time.ticks {
            body.append("<line x1=\"\(f(px(t)))\" y1=\"\(f(top + height))\" x2=\"\(f(px(t)))\" y2=\"\(f(top + height + 5))\"/>")
        }
        body.append("</g>")
        for (t, label) in time.ticks {
            body.append("<text class=\"time-tick\" x=\"\(f(px(t)))\" y=\"\(f(top + height + 18))\" text-anchor=\"middle\">\(escape(label))</text>")
        }
        body.append("<text class=\"time-caption\" x=\"\(f(left + width / 2))\" y=\"\(f(top + height + 36))\" text-anchor=\"middle\">\(escape(time.caption))</text>")
        let measured = sorted.filter { $0.value != nil }
        if measured.count > 1 {
            let points = measured.map { "\(f(px($0.time))),\(f(py($0.value!)))" }.joined(separator: " ")
            body.append("<polyline class=\"series\" fill=\"none\" stroke=\"\(palette[0])\" stroke-width=\"1\" opacity=\"0.6\" points=\"\(points)\"/>")
        }
        let stamp = DateFormatter.utc("yyyy-MM-dd HH:mm:ss")
        for s in sorted {
            let x = px(s.time), when = stamp.string(from: Date(timeIntervalSince1970: s.time))
            if let v = s.value {
                body.append("<circle class=\"probe\" cx=\"\(f(x))\" cy=\"\(f(py(v)))\" r=\"3.5\" fill=\"\(palette[0])\"><title>\(escape(s.label)) \(when) UTC: \(escape(valueScale.text(v)))</title></circle>")
            } else {
                let y = top + height
                body.append("<path class=\"no-figure\" d=\"M\(f(x - 4)) \(f(y - 4))L\(f(x + 4)) \(f(y + 4))M\(f(x - 4)) \(f(y + 4))L\(f(x + 4)) \(f(y - 4))\" stroke=\"#999\" stroke-width=\"1.5\"><title>\(escape(s.label)) \(when) UTC: no figure (the phase did not end ok)</title></path>")
            }
        }
        let y = top + height + 58
        body += ["<g class=\"legend\">",
                 "<circle cx=\"\(f(left + 4))\" cy=\"\(f(y - 4))\" r=\"3.5\" fill=\"\(palette[0])\"/>",
                 "<text x=\"\(f(left + 14))\" y=\"\(f(y))\">a probe</text>",
                 "<path d=\"M\(f(left + 80)) \(f(y - 8))l8 8m-8 0l8 -8\" stroke=\"#999\" stroke-width=\"1.5\"/>",
                 "<text x=\"\(f(left + 94))\" y=\"\(f(y))\">no figure (phase failed)</text>",
                 "<text class=\"direction\" x=\"\(f(left + 260))\" y=\"\(f(y))\">\(valueScale.higherIsBetter ? "more" : "less") is better</text>",
                 "</g>"]
        return document(width: 800, height: Int(y + 16), title: title, body)
    }
}
