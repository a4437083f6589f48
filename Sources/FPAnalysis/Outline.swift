/// Checks on a floor outline (a polygon in map units): whether it is a
/// simple polygon at all, and whether a route's leg stays indoors. Inside is
/// `SVGPlot.inside` (even-odd), so plots, the CLI and the dashboard agree.
package enum Outline {
    package typealias Point = (x: Double, y: Double)

    /// Why `corners` is no floor (zero area, or two edges crossing), nil when it is a simple polygon.
    package static func problem(_ corners: [Point]) -> String? {
        guard corners.count >= 3 else { return "an outline needs at least 3 corners, got \(corners.count)" }
        let n = corners.count
        func edge(_ i: Int) -> (Point, Point) { (corners[i], corners[(i + 1) % n]) }
        // Crossings first: a symmetric bow tie's signed area is 0 too, and crossing is what is wrong with it.
        for i in 0..<n {
            for j in (i + 2)..<max(i + 2, n) where !(i == 0 && j == n - 1) {
                let (a, b) = (edge(i), edge(j))
                if meet(a.0, a.1, b.0, b.1) { return "edges \(i + 1) and \(j + 1) cross: the outline must not cross itself" }
            }
        }
        if abs(area(corners)) < 1e-9 { return "the outline has no area (its corners lie on one line)" }
        // Neighbouring edges share a corner; they must not run back over each other.
        for i in 0..<n where folds(corners[(i + n - 1) % n], corners[i], corners[(i + 1) % n]) {
            return "the edges at corner \(i + 1) run back over each other"
        }
        return nil
    }

    /// Signed area (shoelace).
    package static func area(_ corners: [Point]) -> Double {
        var sum = 0.0
        for i in corners.indices {
            let (a, b) = (corners[i], corners[(i + 1) % corners.count])
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    /// Whether the segment a–b lies within the polygon (its edges may run along
    /// the wall): split where it meets the wall, every piece's middle is inside
    /// or on the wall. Holds for concave outlines, where both ends inside is not enough.
    package static func contains(_ polygon: [Point], from a: Point, to b: Point) -> Bool {
        guard within(polygon, a), within(polygon, b) else { return false }
        var cuts: [Double] = [0, 1]
        let d = (x: b.x - a.x, y: b.y - a.y)
        for i in polygon.indices {
            let (p, q) = (polygon[i], polygon[(i + 1) % polygon.count])
            for c in [p, q] where onSegment(c, a, b) {
                cuts.append(abs(d.x) > abs(d.y) ? (c.x - a.x) / d.x : (c.y - a.y) / d.y)
            }
            let e = (x: q.x - p.x, y: q.y - p.y)
            let den = cross(d, e)
            if abs(den) > 1e-12 {
                let t = cross((x: p.x - a.x, y: p.y - a.y), e) / den
                let u = cross((x: p.x - a.x, y: p.y - a.y), d) / den
                if t > 0, t < 1, u >= 0, u <= 1 { cuts.append(t) }
            }
        }
        cuts.sort()
        for (s, t) in zip(cuts, cuts.dropFirst()) where t - s > 1e-9 {
            let m = (t + s) / 2
            if !within(polygon, (x: a.x + d.x * m, y: a.y + d.y * m)) { return false }
        }
        return true
    }

    /// Inside or on the wall.
    package static func within(_ polygon: [Point], _ p: Point) -> Bool {
        if SVGPlot.inside(polygon, x: p.x, y: p.y) { return true }
        return polygon.indices.contains { onSegment(p, polygon[$0], polygon[($0 + 1) % polygon.count]) }
    }

    private static func cross(_ u: Point, _ v: Point) -> Double { u.x * v.y - u.y * v.x }

    private static func orient(_ a: Point, _ b: Point, _ c: Point) -> Double {
        cross((x: b.x - a.x, y: b.y - a.y), (x: c.x - a.x, y: c.y - a.y))
    }

    private static func onSegment(_ p: Point, _ a: Point, _ b: Point) -> Bool {
        let len = max(abs(b.x - a.x), abs(b.y - a.y), 1e-12)
        guard abs(orient(a, b, p)) <= 1e-9 * len * max(len, 1) else { return false }
        return min(a.x, b.x) - 1e-9 <= p.x && p.x <= max(a.x, b.x) + 1e-9
            && min(a.y, b.y) - 1e-9 <= p.y && p.y <= max(a.y, b.y) + 1e-9
    }

    /// Whether segments p1–p2 and q1–q2 touch or cross.
    private static func meet(_ p1: Point, _ p2: Point, _ q1: Point, _ q2: Point) -> Bool {
        let (d1, d2) = (orient(q1, q2, p1), orient(q1, q2, p2))
        let (d3, d4) = (orient(p1, p2, q1), orient(p1, p2, q2))
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        return onSegment(p1, q1, q2) || onSegment(p2, q1, q2) || onSegment(q1, p1, p2) || onSegment(q2, p1, p2)
    }

    /// Whether the edges before–corner and corner–after overlap: the outline turns back on itself there.
    private static func folds(_ before: Point, _ corner: Point, _ after: Point) -> Bool {
        let u = (x: before.x - corner.x, y: before.y - corner.y), v = (x: after.x - corner.x, y: after.y - corner.y)
        return abs(cross(u, v)) <= 1e-9 * max(abs(u.x) + abs(u.y), 1) * max(abs(v.x) + abs(v.y), 1) && u.x * v.x + u.y * v.y > 0
    }
}
