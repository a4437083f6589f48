import Foundation

extension SVGPlot {
    /// An RSSI surface between measured points by inverse-distance
    /// weighting (power 2), on square cells. A point where the transmitter
    /// was scanned but not heard counts as `floor` dBm (below the radio's
    /// sensitivity). Cells farther than `reach` from every point get no
    /// value: the surface stays where there are measurements, never painting
    /// rooms nobody walked into.
    package struct Surface: Sendable {
        package var cell: Double
        package var columns: Int
        package var rows: Int
        /// Row-major, nil where no point is within reach.
        package var values: [Double?]

        /// `outline`: cells whose centre lies outside it get no value (clipped to the floor).
        package init(points: [HeatPoint], width: Double, height: Double, cell: Double, reach: Double, floor: Double = -100,
                     outline: [(x: Double, y: Double)]? = nil) {
            self.cell = max(cell, 1e-9)
            columns = max(1, Int((width / self.cell).rounded(.up)))
            rows = max(1, Int((height / self.cell).rounded(.up)))
            let samples = points.map { (x: $0.x, y: $0.y, v: $0.rssi ?? floor) }
            var values: [Double?] = []
            values.reserveCapacity(columns * rows)
            for r in 0..<rows {
                for c in 0..<columns {
                    let x = (Double(c) + 0.5) * self.cell, y = (Double(r) + 0.5) * self.cell
                    if let outline, !SVGPlot.inside(outline, x: x, y: y) {
                        values.append(nil)
                        continue
                    }
                    values.append(Self.idw(samples, x: x, y: y, reach: reach))
                }
            }
            self.values = values
        }

        /// The weighted mean of the samples within `reach` of (x, y); a sample
        /// on the spot gives its own value.
        static func idw(_ samples: [(x: Double, y: Double, v: Double)], x: Double, y: Double, reach: Double) -> Double? {
            var weighted = 0.0, weights = 0.0, near = false
            for s in samples {
                let d2 = (s.x - x) * (s.x - x) + (s.y - y) * (s.y - y)
                if d2 < 1e-12 { return s.v }
                if d2 <= reach * reach { near = true }
                let w = 1 / d2
                weighted += w * s.v
                weights += w
            }
            return near && weights > 0 ? weighted / weights : nil
        }

        /// SVG rectangles, one per cell with a value, at `scale` pixels per unit from (left, top).
        /// `clipID`: a clipPath (`outlineClip`) the cells are cut to, as a cell whose centre is indoors still reaches past the wall.
        func svg(left: Double, top: Double, scale: Double, clipID: String? = nil) -> [String] {
            var lines = ["<g class=\"surface\"" + (clipID.map { " clip-path=\"url(#\($0))\"" } ?? "") + ">"]
            let side = cell * scale
            for r in 0..<rows {
                for c in 0..<columns {
                    guard let v = values[r * columns + c] else { continue }
                    lines.append("<rect x=\"\(f(left + Double(c) * side))\" y=\"\(f(top + Double(r) * side))\" width=\"\(f(side + 0.3))\" height=\"\(f(side + 0.3))\" fill=\"\(color(rssi: v))\"/>")
                }
            }
            lines.append("</g>")
            return lines
        }
    }

    /// Whether (x, y) lies inside the polygon (even-odd rule, by a ray to the right).
    package static func inside(_ polygon: [(x: Double, y: Double)], x: Double, y: Double) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let (a, b) = (polygon[i], polygon[j])
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// A clipPath of the outline polygon, so shading drawn in whole cells
    /// stops at the wall; nil without an outline (the plot's rectangle bounds it).
    package static func outlineClip(_ outline: [(x: Double, y: Double)]?, id: String, left: Double, top: Double, scale: Double) -> String? {
        guard let outline, outline.count >= 3 else { return nil }
        let points = outline.map { "\(f(left + $0.x * scale)),\(f(top + $0.y * scale))" }.joined(separator: " ")
        return "<clipPath id=\"\(id)\"><polygon points=\"\(points)\"/></clipPath>"
    }

    /// The outline's clip, else the plot's rectangle: a cell at the edge of
    /// the data reaches past the frame and must not spill over axes or legend.
    static func areaClip(_ outline: [(x: Double, y: Double)]?, id: String, left: Double, top: Double, scale: Double,
                         width: Double, height: Double) -> String {
        outlineClip(outline, id: id, left: left, top: top, scale: scale)
            ?? "<clipPath id=\"\(id)\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\"/></clipPath>"
    }

    /// The floor outline: the given polygon, else the plot's rectangle.
    static func outlineShape(_ outline: [(x: Double, y: Double)]?, left: Double, top: Double, scale: Double,
                             width: Double, height: Double) -> String {
        guard let outline, outline.count >= 3 else {
            return "<rect class=\"outline\" x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"none\" stroke=\"#888\"/>"
        }
        let points = outline.map { "\(f(left + $0.x * scale)),\(f(top + $0.y * scale))" }.joined(separator: " ")
        return "<g class=\"frame\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(height))\" fill=\"none\" stroke=\"#ddd\"/></g>"
            + "<polygon class=\"outline\" points=\"\(points)\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"/>"
    }
}
