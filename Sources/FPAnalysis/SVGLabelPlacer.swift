import Foundation

/// Places text labels on a plot so that none covers a mark (a point, a line,
/// a box) or another label: each label tries spots around its anchor (right,
/// left, above, below, the diagonals), then the same ring further out with a
/// leader line back to the anchor, and takes the first clear one inside the
/// frame. Marks are registered before labels are placed; every placed label
/// (and its leader) becomes a mark for the next.
package struct SVGLabelPlacer: Sendable {
    /// An axis-aligned box in pixels, y down.
    package struct Box: Sendable, Equatable {
        package var x0: Double, y0: Double, x1: Double, y1: Double
        package init(x0: Double, y0: Double, x1: Double, y1: Double) {
            self.x0 = x0
            self.y0 = y0
            self.x1 = x1
            self.y1 = y1
        }
        package func overlaps(_ o: Box) -> Bool { x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1 }
        package func contains(_ o: Box) -> Bool { x0 <= o.x0 && o.x1 <= x1 && y0 <= o.y0 && o.y1 <= y1 }
        func grown(_ d: Double) -> Box { Box(x0: x0 - d, y0: y0 - d, x1: x1 + d, y1: y1 + d) }
        /// The distance from (x, y) to the box's nearest and farthest points.
        func distances(_ x: Double, _ y: Double) -> (near: Double, far: Double) {
            let nx = max(x0 - x, 0, x - x1), ny = max(y0 - y, 0, y - y1)
            let fx = max(abs(x - x0), abs(x - x1)), fy = max(abs(y - y0), abs(y - y1))
            return ((nx * nx + ny * ny).squareRoot(), (fx * fx + fy * fy).squareRoot())
        }
    }

    /// Something drawn that a label must not cover.
    package enum Mark: Sendable {
        /// A filled disc (a dot, a marker), radius including its outline.
        case disc(x: Double, y: Double, r: Double)
        /// A circle's outline only: a label may sit inside or outside it, not across it.
        case ring(x: Double, y: Double, r: Double, width: Double)
        /// A line from (x1, y1) to (x2, y2), `width` its stroke.
        case segment(x1: Double, y1: Double, x2: Double, y2: Double, width: Double)
        case box(Box)

        package func hits(_ b: Box) -> Bool {
            switch self {
            case .disc(let x, let y, let r):
                return b.distances(x, y).near < r
            case .ring(let x, let y, let r, let w):
                let d = b.distances(x, y)
                return d.near < r + w / 2 && d.far > r - w / 2
            case .segment(let x1, let y1, let x2, let y2, let w):
                return SVGLabelPlacer.segment((x1, y1), (x2, y2), crosses: b.grown(w / 2))
            case .box(let o):
                return o.overlaps(b)
            }
        }
    }

    /// Where a label went: its text's anchor point (`x`, baseline `y`) and
    /// SVG `text-anchor`, its box, and a leader line when it sits away from its anchor.
    package struct Placement: Sendable {
        package var x: Double, y: Double
        package var textAnchor: String
        package var box: Box
        package var leader: (x1: Double, y1: Double, x2: Double, y2: Double)?
        /// False when no spot was clear: the least covered one was taken.
        package var clear: Bool
    }

    /// The area labels must stay in.
    package var frame: Box
    package private(set) var marks: [Mark] = []
    package private(set) var labels: [Box] = []

    package init(frame: Box) { self.frame = frame }

    package mutating func add(_ mark: Mark) { marks.append(mark) }

    /// A polyline's segments, each a mark.
    package mutating func add(polyline points: [(x: Double, y: Double)], width: Double) {
        for (a, b) in zip(points, points.dropFirst()) {
            marks.append(.segment(x1: a.x, y1: a.y, x2: b.x, y2: b.y, width: width))
        }
    }

    /// About how wide `text` is in a sans-serif font of `size` px (DejaVu Sans'
    /// advance widths, rounded up by class: capitals and digits are wider than lower case).
    package static func textWidth(_ text: String, size: Double) -> Double {
        text.reduce(0.0) { sum, c in
            let em: Double
            if c == " " || c == "," || c == "." || c == ":" || c == ";" || c == "'" || c == "|" || c == "i" || c == "l" || c == "j" {
                em = 0.32
            } else if c == "m" || c == "w" || c == "M" || c == "W" || c == "—" || c == "→" {
                em = 0.9
            } else if c.isUppercase || c.isNumber {
                em = 0.7
            } else {
                em = 0.6
            }
            return sum + em * size
        }
    }

    /// The box of `text` at (`x`, baseline `y`), with `pad` px round it (a halo).
    package static func textBox(_ text: String, x: Double, y: Double, textAnchor: String = "start", size: Double,
                                pad: Double = 1.5) -> Box {
        let w = textWidth(text, size: size)
        let x0 = textAnchor == "end" ? x - w : textAnchor == "middle" ? x - w / 2 : x
        return Box(x0: x0 - pad, y0: y - 0.8 * size - pad, x1: x0 + w + pad, y1: y + 0.25 * size + pad)
    }

    /// Places `text` (font `size` px) near (`ax`, `ay`), at least `gap` px
    /// from it; the label and its leader are marks from now on.
    package mutating func place(_ text: String, near ax: Double, _ ay: Double, size: Double = 11, gap: Double = 6)
        -> Placement
    {
        let w = Self.textWidth(text, size: size) + 3, h = 1.05 * size + 3
        var best: (placement: Placement, cost: Int)?
        for (ring, distance) in [gap, gap + 10, gap + 24, gap + 44, gap + 70].enumerated() {
            // Box corners (x0, y0) for right, left, above, below and the diagonals.
            let d = distance
            let spots: [(Double, Double)] = [
                (ax + d, ay - h / 2), (ax - d - w, ay - h / 2), (ax - w / 2, ay - d - h), (ax - w / 2, ay + d),
                (ax + d * 0.7, ay - d * 0.7 - h), (ax - d * 0.7 - w, ay - d * 0.7 - h),
                (ax + d * 0.7, ay + d * 0.7), (ax - d * 0.7 - w, ay + d * 0.7),
            ]
            for (x0, y0) in spots {
                let box = Box(x0: x0, y0: y0, x1: x0 + w, y1: y0 + h)
                guard frame.contains(box) else { continue }
                let leader = ring == 0 ? nil : Self.leader(from: (ax, ay), to: box)
                let leaderMark = leader.map { Mark.segment(x1: $0.x1, y1: $0.y1, x2: $0.x2, y2: $0.y2, width: 1) }
                var cost = marks.filter { $0.hits(box) }.count + labels.filter { $0.overlaps(box) }.count
                // A leader must not run through another label either.
                if let leaderMark { cost += labels.filter { leaderMark.hits($0) }.count }
                let placement = Placement(x: box.x0 + 1.5, y: box.y0 + 1.5 + 0.8 * size, textAnchor: "start", box: box,
                                          leader: leader, clear: cost == 0)
                if cost == 0 {
                    commit(placement)
                    return placement
                }
                if best == nil || cost < best!.cost { best = (placement, cost) }
            }
        }
        // Nothing clear (or nothing inside the frame): the least covered spot, else right of the anchor.
        let fallback = best?.placement ?? Placement(
            x: ax + gap, y: ay + 0.3 * size, textAnchor: "start",
            box: Box(x0: ax + gap - 1.5, y0: ay - h / 2, x1: ax + gap + w - 1.5, y1: ay + h / 2), leader: nil, clear: false)
        commit(fallback)
        return fallback
    }

    private mutating func commit(_ p: Placement) {
        labels.append(p.box)
        if let l = p.leader { marks.append(.segment(x1: l.x1, y1: l.y1, x2: l.x2, y2: l.y2, width: 1)) }
    }

    /// From just off the anchor to the box's nearest point.
    static func leader(from a: (x: Double, y: Double), to b: Box) -> (x1: Double, y1: Double, x2: Double, y2: Double) {
        let tx = min(max(a.x, b.x0), b.x1), ty = min(max(a.y, b.y0), b.y1)
        let dx = tx - a.x, dy = ty - a.y, len = max((dx * dx + dy * dy).squareRoot(), 1e-9)
        // Start 4 px out so the anchor's own mark stays whole.
        return (a.x + dx / len * 4, a.y + dy / len * 4, tx, ty)
    }

    /// Whether the segment from `a` to `b` enters the box (Liang–Barsky clipping).
    static func segment(_ a: (Double, Double), _ b: (Double, Double), crosses box: Box) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.0 - a.0, dy = b.1 - a.1
        for (p, q) in [(-dx, a.0 - box.x0), (dx, box.x1 - a.0), (-dy, a.1 - box.y0), (dy, box.y1 - a.1)] {
            if p == 0 {
                if q < 0 { return false }
            } else {
                let r = q / p
                if p < 0 { t0 = max(t0, r) } else { t1 = min(t1, r) }
                if t0 > t1 { return false }
            }
        }
        return true
    }

    /// The SVG of a placed label: text with a white halo and, when away from its anchor, a thin leader.
    package static func svg(_ text: String, at p: Placement, color: String, cssClass: String, size: Double = 11) -> String {
        let leader = p.leader.map {
            "<line class=\"\(cssClass)-leader\" x1=\"\(SVGPlot.f($0.x1))\" y1=\"\(SVGPlot.f($0.y1))\" x2=\"\(SVGPlot.f($0.x2))\" y2=\"\(SVGPlot.f($0.y2))\" stroke=\"\(color)\" stroke-width=\"0.8\"/>"
        } ?? ""
        return leader + "<text class=\"\(cssClass)\" x=\"\(SVGPlot.f(p.x))\" y=\"\(SVGPlot.f(p.y))\" fill=\"\(color)\" font-size=\"\(SVGPlot.f(size))\" "
            + "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(SVGPlot.escape(text))</text>"
    }
}
