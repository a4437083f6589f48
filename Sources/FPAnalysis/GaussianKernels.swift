/// Several Gaussian kernels (a sweep of σ) over one space: each test row's
/// walk over the training postings is made once and feeds every kernel's
/// scores. Each kernel's score of a row is the same sum of the same terms
/// in the same order as a kernel alone makes it, so the winners are the
/// same to the last bit; only the walk (the column lists, the rows they
/// name, the offsets) is shared.
struct GaussianKernels {
    let kernels: [GaussianKernel]

    init(_ kernels: [GaussianKernel]) { self.kernels = kernels }

    /// For each kernel j, the `ks[j]` likeliest training rows of test row `t`, likeliest first.
    /// `scores` is scratch space (resized to kernels × training rows).
    func likeliest(test t: Int, ks: [Int], scores: inout [Double]) -> [[Int]] {
        guard let first = kernels.first else { return [] }
        let space = first.space, n = space.trainCount, q = n + t
        guard n > 0 else { return kernels.map { _ in [] } }
        if scores.count != n * kernels.count { scores = [Double](repeating: 0, count: n * kernels.count) }
        if space.halfDecibels {
            // Every kernel's table is indexed alike (same space, same reach): side by side in one buffer.
            let width = first.table.count, offset = first.offset, missing = first.missing, count = kernels.count
            let tables = kernels.flatMap(\.table)
            let postings = first.postings
            // Local buffers: the loop runs ~10⁸ times a month, in debug builds too (the tests).
            let (start, rows, values) = (postings.postingStart, postings.postingRow, postings.postingScaled)
            tables.withUnsafeBufferPointer { tables in
                scores.withUnsafeMutableBufferPointer { scores in
                    for i in 0..<scores.count { scores[i] = 0 }
                    rows.withUnsafeBufferPointer { rows in
                        values.withUnsafeBufferPointer { values in
                            for e in space.entries(q) {
                                let c = Int(space.entryColumn[e]), a = space.scaled[e]
                                for p in start[c]..<start[c + 1] {
                                    let row = Int(rows[p]), index = Int(values[p] - a) + offset
                                    for j in 0..<count { scores[j * n + row] += tables[j * width + index] - missing }
                                }
                            }
                        }
                    }
                }
            }
        } else {
            for (j, kernel) in kernels.enumerated() {
                for r in 0..<n { scores[j * n + r] = kernel.sharedScore(r, q) }
            }
        }
        return scores.withUnsafeBufferPointer { scores in
            kernels.enumerated().map { j, kernel in
                kernel.select(q, k: ks[j], scores: UnsafeBufferPointer(rebasing: scores[j * n..<(j + 1) * n]))
            }
        }
    }
}
