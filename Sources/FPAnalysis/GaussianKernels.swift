/// Several Gaussian kernels (a sweep of σ) over one space: each test row's
/// walk over the training postings is made once and feeds every kernel's
/// scores. Each kernel's score of a row is the same sum of the same terms
/// in the same order as a kernel alone makes it, so the winners are the
/// same to the last bit; only the walk (the column lists, the rows they
/// name, the offsets) is shared.
struct GaussianKernels {
    let kernels: [GaussianKernel]
    /// Every kernel's table less `missing`, side by side: `tables[index * slots + j]`.
    private let tables: [Double]
    /// The kernels rounded up to whole vectors of 8 (the rest are zeros): a row's kernels are added 8 at a time.
    private let slots: Int

    init(_ kernels: [GaussianKernel]) {
        self.kernels = kernels
        slots = (kernels.count + 7) / 8 * 8
        let width = kernels.first?.table.count ?? 0, missing = kernels.first?.missing ?? 0
        var tables = [Double](repeating: 0, count: width * slots)
        for (j, kernel) in kernels.enumerated() {
            for index in 0..<width { tables[index * slots + j] = kernel.table[index] - missing }
        }
        self.tables = tables
    }

    /// For each kernel j, the `ks[j]` likeliest training rows of test row `t`, likeliest first.
    /// `scores` is scratch space (resized to kernels × training rows).
    func likeliest(test t: Int, ks: [Int], scores: inout [Double]) -> [[Int]] {
        guard let first = kernels.first else { return [] }
        let space = first.space, n = space.trainCount, q = n + t
        guard n > 0 else { return kernels.map { _ in [] } }
        let slots = slots
        if scores.count != n * slots { scores = [Double](repeating: 0, count: n * slots) }
        if space.halfDecibels {
            // Row by row, each row's kernels side by side (`scores[row * slots + j]`), and the
            // tables likewise: a posting adds its kernels' terms as vectors of 8 (lane by lane,
            // so each kernel's sum is the same as alone), not one by one `n` apart.
            let offset = first.offset
            let postings = first.postings
            // Local buffers: the loop runs ~10⁸ times a month, in debug builds too (the tests).
            let (start, rows, values) = (postings.postingStart, postings.postingRow, postings.postingScaled)
            let bytes = slots * MemoryLayout<Double>.stride, vector = MemoryLayout<SIMD8<Double>>.stride
            tables.withUnsafeBufferPointer { tables in
                scores.withUnsafeMutableBufferPointer { scores in
                    for i in 0..<scores.count { scores[i] = 0 }
                    rows.withUnsafeBufferPointer { rows in
                        values.withUnsafeBufferPointer { values in
                            for e in space.entries(q) {
                                let c = Int(space.entryColumn[e]), a = space.scaled[e]
                                for p in start[c]..<start[c + 1] {
                                    let row = UnsafeMutableRawPointer(scores.baseAddress! + Int(rows[p]) &* slots)
                                    let terms = UnsafeRawPointer(tables.baseAddress! + (Int(values[p] - a) &+ offset) &* slots)
                                    for at in Swift.stride(from: 0, to: bytes, by: vector) {
                                        let sum = row.loadUnaligned(fromByteOffset: at, as: SIMD8<Double>.self)
                                            + terms.loadUnaligned(fromByteOffset: at, as: SIMD8<Double>.self)
                                        row.storeBytes(of: sum, toByteOffset: at, as: SIMD8<Double>.self)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        } else {
            for (j, kernel) in kernels.enumerated() {
                for r in 0..<n { scores[r * slots + j] = kernel.sharedScore(r, q) }
            }
        }
        // Each kernel selects from its own column of the row-by-row scores, read in place.
        return scores.withUnsafeBufferPointer { scores in
            kernels.enumerated().map { j, kernel in
                kernel.select(q, k: ks[j], scores: StridedScores(base: scores.baseAddress! + j, count: n, stride: slots))
            }
        }
    }
}

/// One kernel's scores among several kept row by row: `count` values `stride` apart.
struct StridedScores {
    let base: UnsafePointer<Double>
    let count: Int
    let stride: Int

    subscript(row: Int) -> Double { base[row &* stride] }
}
