import Foundation

/// Routes that walk the same corridor would be drawn one over the other, the
/// last hiding the rest: each such route gets a lane, a few pixels to the
/// side, so every one stays visible beside the others.
extension SVGPlot {
    /// Pixels between neighbouring lanes: more than a route line's width.
    static let laneWidth = 3.5

    /// Per route (pixel polylines), its lane: 0 on its own path, else 0, 1,
    /// −1, 2, … the first not taken by an earlier route it shares a stretch with.
    static func lanes(_ routes: [[(x: Double, y: Double)]]) -> [Int] {
        var lanes: [Int] = []
        for (i, route) in routes.enumerated() {
            let taken = Set((0..<i).filter { sharePath(route, routes[$0]) }.map { lanes[$0] })
            let order = [0] + (1...max(1, routes.count)).flatMap { [$0, -$0] }
            lanes.append(order.first { !taken.contains($0) } ?? i)
        }
        return lanes
    }

    /// Whether two polylines run along the same line for more than a few pixels.
    static func sharePath(_ a: [(x: Double, y: Double)], _ b: [(x: Double, y: Double)]) -> Bool {
        for (p, q) in zip(a, a.dropFirst()) {
            let len = ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
            guard len > 1e-6 else { continue }
            let ux = (q.x - p.x) / len, uy = (q.y - p.y) / len
            for (r, s) in zip(b, b.dropFirst()) {
                // Both ends within 1.5 px of the line through p and q ...
                let across = [r, s].map { abs(($0.x - p.x) * uy - ($0.y - p.y) * ux) }
                guard across.allSatisfy({ $0 < 1.5 }) else { continue }
                // ... and overlapping p–q along it by more than 4 px.
                let along = [r, s].map { ($0.x - p.x) * ux + ($0.y - p.y) * uy }
                if min(len, along.max()!) - max(0, along.min()!) > 4 { return true }
            }
        }
        return false
    }

    /// The polyline moved `distance` px sideways. Each segment's side is fixed
    /// by its normal pointing down (or right when vertical), whichever way the
    /// route walks it, so two routes on one corridor in opposite directions
    /// with lanes 1 and −1 land on opposite sides; corners are mitred.
    static func offset(_ points: [(x: Double, y: Double)], by distance: Double) -> [(x: Double, y: Double)] {
        guard distance != 0, points.count > 1 else { return points }
        let normals: [(x: Double, y: Double)] = zip(points, points.dropFirst()).map { p, q in
            let len = max(((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot(), 1e-9)
            var n = (x: -(q.y - p.y) / len, y: (q.x - p.x) / len)
            if n.y < -1e-9 || (abs(n.y) <= 1e-9 && n.x < 0) { n = (-n.x, -n.y) }
            return n
        }
        return points.indices.map { i in
            let before = i > 0 ? normals[i - 1] : normals[i], after = i < normals.count ? normals[i] : normals[i - 1]
            let dot = before.x * after.x + before.y * after.y
            // A mitre: the corner where both moved segments meet; a sharp turn (or a flipped side) keeps one segment's offset.
            let m = dot > -0.5 ? (x: (before.x + after.x) / (1 + dot), y: (before.y + after.y) / (1 + dot)) : after
            return (x: points[i].x + m.x * distance, y: points[i].y + m.y * distance)
        }
    }
}
