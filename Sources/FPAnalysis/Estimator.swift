/// NN, KNN (weight 1) and WKNN (weight 1/d, d = 0 counted as 0.0001).
package enum Estimator: String, Sendable, CaseIterable, Codable {
    case nn, knn, wknn

    package var label: String { rawValue.uppercased() }
}

/// An estimated position: map units and the floor (map id) of the nearest neighbour.
package struct Estimate: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package var level: String
}

extension Estimator {
    /// The position from neighbours (nearest first), using the first `k` of
    /// them (NN: the first). Summation runs nearest first from 0, exactly as
    /// the evaluator: x = (((0 + w1·x1) + w2·x2) + w3·x3) / (((0 + w1) + w2) + w3),
    /// which is why WKNN with k = 1 may differ from NN in the last bit.
    /// nil when there is no neighbour (no transmitter in common with anything).
    package func estimate(_ neighbours: ArraySlice<Neighbour>, k: Int, position: (Int) -> (x: Int, y: Int, level: String))
        -> Estimate?
    {
        guard let first = neighbours.first else { return nil }
        let nearest = position(first.index)
        if self == .nn { return Estimate(x: Double(nearest.x), y: Double(nearest.y), level: nearest.level) }
        var sx = 0.0, sy = 0.0, sw = 0.0
        for n in neighbours.prefix(k) {
            let p = position(n.index)
            let w: Double
            if self == .wknn {
                let d = n.distance == 0 ? 0.0001 : n.distance
                w = 1 / d
            } else {
                w = 1
            }
            sw = sw + w
            // Two statements: the product is rounded before the add, as in Java (no fused multiply-add).
            let tx = w * Double(p.x)
            sx = sx + tx
            let ty = w * Double(p.y)
            sy = sy + ty
        }
        return Estimate(x: sx / sw, y: sy / sw, level: nearest.level)
    }
}
