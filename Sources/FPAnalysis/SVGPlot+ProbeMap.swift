import FPCore
import Foundation

extension SVGPlot {
    /// One network probe on a map: where it started and ended, and its figure
    /// (nil: the phase that gives it did not end `ok`).
    package struct ProbeMark: Sendable {
        package var x: Double, y: Double
        package var start: (x: Double, y: Double)?, end: (x: Double, y: Double)?
        package var value: Double?
        package var label: String
        package init(x: Double, y: Double, start: (x: Double, y: Double)?, end: (x: Double, y: Double)?, value: Double?, label: String) {
            (self.x, self.y, self.start, self.end, self.value, self.label) = (x, y, start, end, value, label)
        }
    }

    /// The median figure of the probes in each square cell of `cell` map
    /// units (row, column from the map's origin). Probes are few (one every
    /// few minutes or metres), so nothing is interpolated between them.
    package static func probeCells(_ marks: [ProbeMark], cell: Double) -> [(column: Int, row: Int, median: Double, count: Int)] {
        var byCell: [Int: [Int: [Double]]] = [:]
        for m in marks {
            guard let v = m.value else { continue }
            let c = Int((m.x / cell).rounded(.down)), r = Int((m.y / cell).rounded(.down))
            byCell[r, default: [:]][c, default: []].append(v)
        }
        return byCell.keys.sorted().flatMap { r in
            byCell[r]!.keys.sorted().map { c in
                let values = byCell[r]![c]!
                return (c, r, Reduction.median(values)!, values.count)
            }
        }
    }

    /// Network probes on the floor plan: per `cellMeters` square the median
    /// figure of the probes in it, coloured by `scale` (yellow better),
    /// clipped to the floor's outline; each probe a dot (a line from where
    /// it started to where it ended when it moved), grey crosses for probes
    /// without the figure. Axes in metres, the colour bar in the figure's unit.
    package static func probeHeatmap(title: String, marks: [ProbeMark], scale valueScale: ValueScale, cellMeters: Double,
                                     mapWidth: Double, mapHeight: Double, metersPerUnit: Double,
                                     outline: [(x: Double, y: Double)]? = nil, floorPlan: FloorPlan? = nil,
                                     underlay: String? = nil, size: Int = 800) -> String {
        let left = 50.0, top = 40.0
        let (w, h, scale) = mapArea(mapWidth: mapWidth, mapHeight: mapHeight, width: Double(size) - left - 110, height: 760)
        var body = floorPlanImage(floorPlan, left: left, top: top, scale: scale, width: w, height: h, clipID: "probe-area")
        if let underlay {
            body.append("<image x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(w))\" height=\"\(f(h))\" preserveAspectRatio=\"none\" xlink:href=\"\(escape(underlay))\" href=\"\(escape(underlay))\" opacity=\"0.6\"/>")
        }
        let cell = cellMeters / max(metersPerUnit, 1e-9)
        let clip = outlineClip(outline, id: "probe-floor", left: left, top: top, scale: scale)
        if let clip { body.append(clip) }
        body.append("<g class=\"cells\"" + (clip == nil ? "" : " clip-path=\"url(#probe-floor)\"") + ">")
        let side = cell * scale
        for c in probeCells(marks, cell: cell) {
            body.append("<rect class=\"cell\" x=\"\(f(left + Double(c.column) * side))\" y=\"\(f(top + Double(c.row) * side))\" width=\"\(f(side))\" height=\"\(f(side))\" fill=\"\(valueScale.color(c.median))\" stroke=\"#333\" stroke-width=\"0.5\"><title>median \(escape(valueScale.text(c.median))) of \(c.count == 1 ? "1 probe" : "\(c.count) probes")</title></rect>")
        }
        body.append("</g>")
        body.append(outlineShape(outline, left: left, top: top, scale: scale, width: w, height: h))
        body += mapAxes(left: left, top: top, width: w, height: h, widthM: mapWidth * metersPerUnit, heightM: mapHeight * metersPerUnit)
        for m in marks {
            let cx = left + m.x * scale, cy = top + m.y * scale
            if let s = m.start, let e = m.end, s.x != e.x || s.y != e.y {
                body.append("<line class=\"probe-path\" x1=\"\(f(left + s.x * scale))\" y1=\"\(f(top + s.y * scale))\" x2=\"\(f(left + e.x * scale))\" y2=\"\(f(top + e.y * scale))\" stroke=\"#222\" stroke-width=\"1\"/>")
            }
            if let v = m.value {
                body.append("<circle class=\"probe\" cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"2.5\" fill=\"#222\"><title>\(escape(m.label)): \(escape(valueScale.text(v)))</title></circle>")
            } else {
                body.append("<path class=\"no-figure\" d=\"M\(f(cx - 4)) \(f(cy - 4))L\(f(cx + 4)) \(f(cy + 4))M\(f(cx - 4)) \(f(cy + 4))L\(f(cx + 4)) \(f(cy - 4))\" stroke=\"#999\" stroke-width=\"1.5\"><title>\(escape(m.label)): no figure (the phase did not end ok)</title></path>")
            }
        }
        body += valueBar(valueScale, x: left + w + 16, top: top + 20, height: min(240, max(120, h - 40)))
        let y = top + h + 56
        body += ["<g class=\"legend\">",
                 "<rect x=\"\(f(left - 1))\" y=\"\(f(y - 9))\" width=\"10\" height=\"10\" fill=\"\(viridisColor(0.7))\" stroke=\"#333\" stroke-width=\"0.5\"/>",
                 "<text x=\"\(f(left + 14))\" y=\"\(f(y))\">median \(escape(valueScale.name)) of the probes in each \(tickLabel(cellMeters, step: cellMeters)) m square, not interpolated (blank: no probe there)</text>",
                 "<circle cx=\"\(f(left + 4))\" cy=\"\(f(y + 12))\" r=\"2.5\" fill=\"#222\"/>",
                 "<text x=\"\(f(left + 14))\" y=\"\(f(y + 16))\">a probe (a line: where it started and ended)</text>",
                 "<path d=\"M\(f(left + 310)) \(f(y + 8))l8 8m-8 0l8 -8\" stroke=\"#999\" stroke-width=\"1.5\"/>",
                 "<text x=\"\(f(left + 324))\" y=\"\(f(y + 16))\">no figure (phase failed)</text>",
                 "<text class=\"direction\" x=\"\(f(left + 490))\" y=\"\(f(y + 16))\">\(escape(valueScale.direction))</text>",
                 "</g>"]
        return document(width: size, height: Int(top + h + 84), title: title, body)
    }
}
