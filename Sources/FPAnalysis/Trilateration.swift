/// Position from distances to beacons at known points.
///
/// 1. `closedForm`: three spheres intersected in the frame of the beacons
///    (ex along b1→b2, ey in the beacons' plane, ez normal): x and y are
///    linear, z = ±√(r1² − x² − y²); of the two mirror points the lower z is
///    taken (beacons hang on the ceiling). A negative z² (spheres that do not
///    meet) is clamped to 0: the nearest point in the plane.
/// 2. `averageOfTriples`: with more than three beacons, the mean of the
///    closed-form solutions of every 3-beacon subset (in index order).
/// 3. `refine`: damped Gauss–Newton on f_i(p) = |p − b_i| − d_i with the
///    correct sign, p ← p − step·(BᵀB)⁻¹Bᵀf (B: rows (p − b_i)/|p − b_i|).
///    Without the minus it climbs away from the solution (the thesis misprint).
package enum Trilateration {
    package struct Anchor: Sendable, Equatable {
        package var position: Vec3
        package var distance: Double
        package init(_ position: Vec3, _ distance: Double) {
            self.position = position
            self.distance = distance
        }
    }

    /// nil when the three beacons are (nearly) collinear. `planar`: positions
    /// in the beacons' plane (2-D maps): the point in the plane, no ±z.
    package static func closedForm(_ a: Anchor, _ b: Anchor, _ c: Anchor, planar: Bool = false) -> Vec3? {
        let p1 = a.position, p2 = b.position, p3 = c.position
        let d = (p2 - p1).length
        guard d > 1e-12 else { return nil }
        let ex = (1 / d) * (p2 - p1)
        let i = ex.dot(p3 - p1)
        let eyRaw = (p3 - p1) - i * ex
        let eyLength = eyRaw.length
        guard eyLength > 1e-9 * max(1, d) else { return nil }
        let ey = (1 / eyLength) * eyRaw
        let ez = ex.cross(ey)
        let j = ey.dot(p3 - p1)
        let r1 = a.distance * a.distance, r2 = b.distance * b.distance, r3 = c.distance * c.distance
        let x = (r1 - r2 + d * d) / (2 * d)
        let y = (r1 - r3 + i * i + j * j) / (2 * j) - (i / j) * x
        let z = max(0, r1 - x * x - y * y).squareRoot()
        let base = p1 + x * ex + y * ey
        if planar { return base }
        let up = base + z * ez, down = base - z * ez
        return up.z <= down.z ? up : down
    }

    /// Mean of the closed-form solutions over all 3-beacon subsets that have one.
    package static func averageOfTriples(_ anchors: [Anchor], planar: Bool = false) -> Vec3? {
        guard anchors.count >= 3 else { return nil }
        var sum = Vec3(0, 0, 0)
        var n = 0
        for i in 0..<anchors.count {
            for j in (i + 1)..<anchors.count {
                for k in (j + 1)..<anchors.count {
                    if let p = closedForm(anchors[i], anchors[j], anchors[k], planar: planar) {
                        sum = sum + p
                        n += 1
                    }
                }
            }
        }
        return n == 0 ? nil : (1 / Double(n)) * sum
    }

    /// Damped Gauss–Newton in the plane (z kept), from `start`. Stops when a
    /// step is shorter than `tolerance` or after `maxSteps`.
    /// `sign` is −1 for the correct update; +1 reproduces the misprinted one.
    package static func refine(_ anchors: [Anchor], from start: Vec3, step: Double = 0.05, tolerance: Double = 1e-12,
                              maxSteps: Int = 20_000, sign: Double = -1) -> Vec3 {
        var p = start
        for _ in 0..<maxSteps {
            // Normal equations (BᵀB) δ = Bᵀf for the 2×2 case.
            var a11 = 0.0, a12 = 0.0, a22 = 0.0, g1 = 0.0, g2 = 0.0
            for anchor in anchors {
                let dx = p.x - anchor.position.x, dy = p.y - anchor.position.y, dz = p.z - anchor.position.z
                let r = (dx * dx + dy * dy + dz * dz).squareRoot()
                guard r > 1e-12 else { continue }
                let bx = dx / r, by = dy / r
                let f = r - anchor.distance
                a11 += bx * bx
                a12 += bx * by
                a22 += by * by
                g1 += bx * f
                g2 += by * f
            }
            let det = a11 * a22 - a12 * a12
            guard abs(det) > 1e-15 else { break }
            let d1 = (a22 * g1 - a12 * g2) / det
            let d2 = (a11 * g2 - a12 * g1) / det
            let move = Vec3(sign * step * d1, sign * step * d2, 0)
            p = p + move
            if move.length < tolerance { break }
        }
        return p
    }
}
