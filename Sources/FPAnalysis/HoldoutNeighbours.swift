/// The k nearest training rows of each test row by Euclidean distance over
/// every column, a column not heard counting as the fill value on that side
/// (the paper's −105 dBm), nearest first, equal distances in training-file
/// order: the UJI authors' `kNNEstimation`, whose `sort` is stable.
///
/// With half-dB values (whole dBm medians, or halves of two) the squared
/// distance is an exact integer in quarter dB²: |a|² + |q|² − 2 a·q over the
/// offsets from the fill, the dot product over the columns both heard,
/// found through per-column lists of training rows. Exact, so ties are ties
/// and the order cannot differ from the dense sum's. Other values take the
/// dense sum over the columns in order, as the Matlab code adds them.
struct HoldoutNeighbours {
    struct Neighbour: Equatable {
        var row: Int
        /// Squared distance: quarter dB² on the exact path, dB² otherwise.
        var squared: Double
        var distance: Double
    }

    let space: HoldoutSpace
    /// Training rows by column: postingStart[c]..<postingStart[c+1] index postingRow/postingValue.
    let postingStart: [Int]
    let postingRow: [Int32]
    let postingScaled: [Int64]
    let norms: [Int64]

    init(_ space: HoldoutSpace) {
        self.space = space
        guard space.halfDecibels else {
            postingStart = []
            postingRow = []
            postingScaled = []
            norms = []
            return
        }
        var count = [Int](repeating: 0, count: space.columnCount + 1)
        for r in 0..<space.trainCount {
            for e in space.entries(r) { count[Int(space.entryColumn[e]) + 1] += 1 }
        }
        for c in 0..<space.columnCount { count[c + 1] += count[c] }
        var fill = count
        var rows = [Int32](repeating: 0, count: count.last ?? 0)
        var values = [Int64](repeating: 0, count: count.last ?? 0)
        for r in 0..<space.trainCount {
            for e in space.entries(r) {
                let c = Int(space.entryColumn[e])
                rows[fill[c]] = Int32(r)
                values[fill[c]] = space.scaled[e]
                fill[c] += 1
            }
        }
        postingStart = count
        postingRow = rows
        postingScaled = values
        norms = (0..<(space.trainCount + space.testCount)).map { r in
            space.entries(r).reduce(Int64(0)) { $0 + space.scaled[$1] * space.scaled[$1] }
        }
    }

    /// The `k` nearest training rows of test row `t` (0-based among the tests).
    func nearest(test t: Int, k: Int, dot: inout [Int64]) -> [Neighbour] {
        let q = space.trainCount + t
        let k = min(k, space.trainCount)
        guard k > 0 else { return [] }
        var best: [(squared: Double, row: Int)] = []
        best.reserveCapacity(k + 1)
        var ceiling = Double.infinity
        func offer(_ squared: Double, _ row: Int) {
            if best.count == k && !(squared < ceiling) { return }
            var pos = best.count
            while pos > 0 && squared < best[pos - 1].squared { pos -= 1 }
            best.insert((squared, row), at: pos)
            if best.count > k { best.removeLast() }
            if best.count == k { ceiling = best[k - 1].squared }
        }
        if space.halfDecibels {
            // Local buffers: the loop runs ~10⁸ times a month, in debug builds too (the tests).
            let (start, rows, values, norms, n) = (postingStart, postingRow, postingScaled, norms, space.trainCount)
            dot.withUnsafeMutableBufferPointer { dot in
                for i in 0..<n { dot[i] = 0 }
                rows.withUnsafeBufferPointer { rows in
                    values.withUnsafeBufferPointer { values in
                        for e in space.entries(q) {
                            let c = Int(space.entryColumn[e]), a = space.scaled[e]
                            for p in start[c]..<start[c + 1] { dot[Int(rows[p])] += values[p] * a }
                        }
                    }
                }
                let nq = norms[q]
                norms.withUnsafeBufferPointer { norms in
                    for r in 0..<n { offer(Double(norms[r] + nq - 2 * dot[r]), r) }
                }
            }
            // sqrt(4d²) = 2d exactly, so halving gives the distance of the dB values.
            return best.map { Neighbour(row: $0.row, squared: $0.squared, distance: $0.squared.squareRoot() / 2) }
        }
        for r in 0..<space.trainCount { offer(denseSquared(r, q), r) }
        return best.map { Neighbour(row: $0.row, squared: $0.squared, distance: $0.squared.squareRoot()) }
    }

    /// Σ (a − q)² over every column in order, a missing side at the fill value.
    func denseSquared(_ r: Int, _ q: Int) -> Double {
        let z = space.zeroSignal
        var pr = space.entries(r).lowerBound, pq = space.entries(q).lowerBound
        let er = space.entries(r).upperBound, eq = space.entries(q).upperBound
        var sum = 0.0
        for j in 0..<Int32(space.columnCount) {
            var a = z, b = z
            if pr < er && space.entryColumn[pr] == j {
                a = space.entryValue[pr]
                pr += 1
            }
            if pq < eq && space.entryColumn[pq] == j {
                b = space.entryValue[pq]
                pq += 1
            }
            let d = a - b
            sum += d * d
        }
        return sum
    }
}
