import Foundation

/// The UJI authors' `gaussiankernelEstimation`: a training row's score is
/// the sum over every column of log(1/√(2πσ²) · exp(−(a − q)²/(2σ²))),
/// the term log(1e-6) where either side did not hear the column; the k
/// highest scores win (ties in training-file order, as their stable `sort`).
///
/// Which rows win must match their floating-point sums, added column by
/// column: rows whose terms are the same numbers in other columns tie in
/// exact arithmetic and are then told apart by rounding. Adding all columns
/// for every pair is 1.1 billion terms a month, so the score is first taken
/// from the columns both heard (the rest are all log(1e-6)); only where the
/// k-th and the next are closer than the two sums' rounding can differ are
/// the contenders added up column by column, exactly as the Matlab code does.
struct GaussianKernel {
    let space: HoldoutSpace
    let sigma: Double
    /// log(1e-6): a column either side did not hear.
    let missing = log(1e-6)
    let normaliser: Double
    /// On the half-dB path: log-likelihood by 2·(a − q) + offset.
    let table: [Double]
    let offset: Int
    /// The most two sums of every column's terms can differ by from rounding, doubled.
    let margin: Double
    let postings: HoldoutNeighbours

    init(_ space: HoldoutSpace, sigma: Double, postings: HoldoutNeighbours) {
        self.space = space
        self.sigma = sigma
        self.postings = postings
        // As the Matlab code writes it: 1/sqrt(2*pi*sigma^2).
        normaliser = 1 / ((2 * Double.pi) * (sigma * sigma)).squareRoot()
        let values = space.entryValue
        let span = (values.max() ?? 0) - (values.min() ?? 0)
        if space.halfDecibels {
            let reach = Int((span * 2).rounded())
            offset = reach
            var t: [Double] = []
            t.reserveCapacity(2 * reach + 1)
            for i in -reach...reach { t.append(Self.term(Double(i) / 2, sigma: sigma, normaliser: normaliser)) }
            table = t
        } else {
            offset = 0
            table = []
        }
        let largest = abs(log(normaliser)) + span * span / (2 * sigma * sigma) + abs(missing)
        let n = Double(space.columnCount + 2)
        margin = 4 * n * n * largest * Double.ulpOfOne + 1e-12
    }

    /// One column's log-likelihood, in the Matlab code's order of operations.
    static func term(_ d: Double, sigma: Double, normaliser: Double) -> Double {
        let exponent = -(d * d) / (2 * (sigma * sigma))
        return log(normaliser * exp(exponent))
    }

    func term(_ a: Double, _ q: Double) -> Double {
        Self.term(a - q, sigma: sigma, normaliser: normaliser)
    }

    /// The `k` likeliest training rows of test row `t`, likeliest first.
    func likeliest(test t: Int, k: Int, scores: inout [Double]) -> [Int] {
        GaussianKernels([self]).likeliest(test: t, ks: [k], scores: &scores)[0]
    }

    /// The `k` likeliest of test row `q` (a row of the space) from its shared scores, likeliest first.
    func select(_ q: Int, k: Int, scores: StridedScores) -> [Int] {
        let k = min(k, scores.count)
        guard k > 0 else { return [] }
        let best = Self.highest(scores, count: k + 1)
        let kth = best[k - 1].score
        if best.count == k || best[k].score < kth - margin { return best.prefix(k).map(\.row) }
        // Too close to call from these sums: every contender's score as the Matlab code adds it.
        var contenders: [(score: Double, row: Int)] = []
        for r in 0..<scores.count where scores[r] >= kth - margin { contenders.append((columnByColumn(r, q), r)) }

        contenders.sort { $0.score != $1.score ? $0.score > $1.score : $0.row < $1.row }
        return contenders.prefix(k).map(\.row)
    }

    /// The `count` highest of `scores` with their rows, highest first, equal ones in row order.
    static func highest(_ scores: StridedScores, count: Int) -> [(score: Double, row: Int)] {
        guard count > 0 else { return [] }
        // A fixed run of `count` slots shifted by hand: Array's insert and removeLast were a fifth of a sweep.
        var best = [(score: Double, row: Int)](repeating: (0, 0), count: count)
        var filled = 0
        var floor = -Double.infinity
        best.withUnsafeMutableBufferPointer { best in
            for r in 0..<scores.count {
                let s = scores[r]
                if filled == count && !(s > floor) { continue }
                // Full: the last slot is dropped; else the next one is taken.
                var pos = filled == count ? count - 1 : filled
                if filled < count { filled += 1 }
                while pos > 0 && s > best[pos - 1].score {
                    best[pos] = best[pos - 1]
                    pos -= 1
                }
                best[pos] = (s, r)
                if filled == count { floor = best[count - 1].score }
            }
        }
        return Array(best.prefix(filled))
    }

    /// Σ over columns both heard of (term − log 1e-6), for values off the half-dB grid.
    func sharedScore(_ r: Int, _ q: Int) -> Double {
        var pr = space.entries(r).lowerBound, pq = space.entries(q).lowerBound
        let er = space.entries(r).upperBound, eq = space.entries(q).upperBound
        var s = 0.0
        while pr < er && pq < eq {
            let cr = space.entryColumn[pr], cq = space.entryColumn[pq]
            if cr == cq {
                s += term(space.entryValue[pr], space.entryValue[pq]) - missing
                pr += 1
                pq += 1
            } else if cr < cq {
                pr += 1
            } else {
                pq += 1
            }
        }
        return s
    }

    /// The score as `sum(log(likelihood), 2)` adds it: from 0, one column after another.
    func columnByColumn(_ r: Int, _ q: Int) -> Double {
        var pr = space.entries(r).lowerBound, pq = space.entries(q).lowerBound
        let er = space.entries(r).upperBound, eq = space.entries(q).upperBound
        var s = 0.0
        for j in 0..<Int32(space.columnCount) {
            var a: Double?, b: Double?
            if pr < er && space.entryColumn[pr] == j {
                a = space.entryValue[pr]
                pr += 1
            }
            if pq < eq && space.entryColumn[pq] == j {
                b = space.entryValue[pq]
                pq += 1
            }
            if let a, let b {
                s += space.halfDecibels ? table[Int(((a - b) * 2).rounded()) + offset] : term(a, b)
            } else {
                s += missing
            }
        }
        return s
    }
}
