extension SVGPlot {
    /// One method's figures across groups (months), nil where it has none.
    package struct GroupSeries: Sendable {
        package var label: String
        /// The 75th percentile of the error (m), as `prctile` computes it.
        package var p75: [Double?]
        /// 0…1.
        package var floorSuccess: [Double?]
        package init(label: String, p75: [Double?], floorSuccess: [Double?]) {
            self.label = label
            self.p75 = p75
            self.floorSuccess = floorSuccess
        }
    }

    /// The UJI long-term paper's two figures in one picture: the 75th
    /// percentile error per group (month) above, the floor success rate
    /// below, one line with markers per method, a legend on the right.
    package static func groups(title: String, groupLabel: String, groups: [String], series: [GroupSeries],
                               note: String? = nil) -> String {
        let left = 60.0, width = 560.0, height = 220.0
        let xs = { (i: Int) in Double(i) }
        let lastX = Double(max(groups.count - 1, 1))
        let errors = series.flatMap { $0.p75.compactMap { $0 } }
        let rates = series.flatMap { $0.floorSuccess.compactMap { $0.map { $0 * 100 } } }
        let errorTop = max(1, ((errors.max() ?? 1) * 1.15).rounded(.up))
        let rateBottom = min(99, ((rates.min() ?? 99) - 0.5).rounded(.down))
        var body: [String] = []
        let panels: [(top: Double, y0: Double, y1: Double, label: String, values: (GroupSeries) -> [Double?])] = [
            (40, 0, errorTop, "75th percentile error (m)", { $0.p75 }),
            (40 + height + 70, rateBottom, 100, "floor success (%)", { $0.floorSuccess.map { $0.map { $0 * 100 } } }),
        ]
        for panel in panels {
            let (lines, px, py) = axes(x0: 0, x1: lastX, y0: panel.y0, y1: panel.y1, width: width, height: height, left: left,
                                       top: panel.top, xLabel: groupLabel, yLabel: panel.label, xTicks: false)
            body += lines
            for (i, name) in groups.enumerated() {
                body.append("<text x=\"\(f(px(xs(i))))\" y=\"\(f(panel.top + height + 16))\" text-anchor=\"middle\">\(escape(name))</text>")
            }
            for (yv, _) in labelledTicks(panel.y0, panel.y1) {
                body.append("<line class=\"grid\" x1=\"\(f(left))\" y1=\"\(f(py(yv)))\" x2=\"\(f(left + width))\" y2=\"\(f(py(yv)))\" stroke=\"#ddd\"/>")
            }
            for (k, s) in series.enumerated() {
                let style = seriesStyle(k)
                let points = panel.values(s).enumerated().compactMap { i, v in v.map { (px(xs(i)), py($0)) } }
                let line = points.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
                body.append("<polyline class=\"series\" fill=\"none\" \(strokeAttributes(style, width: 2)) points=\"\(line)\"><title>\(escape(s.label))</title></polyline>")
                body.append("<g class=\"markers\">" + points.map { marker(style, x: $0.0, y: $0.1) }.joined() + "</g>")
            }
        }
        for (k, s) in series.enumerated() {
            body.append(legendEntry(seriesStyle(k), x: left + width + 24, y: 60 + Double(k) * 18, label: s.label))
        }
        let bottom = 40 + 2 * height + 70 + 50
        // The note wrapped at words inside the drawing (a long selection ran off its right edge).
        let noteLines = note.map { wrap($0, at: Int((width + 170) / 5.6)) } ?? []
        for (n, line) in noteLines.enumerated() {
            body.append("<text x=\"\(f(left))\" y=\"\(f(bottom + 8 + Double(n) * 13))\" font-size=\"10\" fill=\"#555\">\(escape(line))</text>")
        }
        return document(width: Int(left + width + 180), height: Int(bottom + (noteLines.isEmpty ? 0 : 7 + 13 * Double(noteLines.count))),
                        title: title, body)
    }
}
