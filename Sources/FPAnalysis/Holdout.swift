/// A train/test evaluation as the UJI long-term paper runs it: every test
/// fingerprint is positioned against the training fingerprints alone.
///
/// - kNN: the k nearest (`HoldoutNeighbours`); if the nearest is at distance
///   0, the first such neighbour's position and floor; otherwise the mean
///   x, y of the k (added nearest first, divided by k, as Matlab's `mean`)
///   and their most frequent floor, the lowest on a tie (Matlab's `mode`).
/// - WKNN: the same, the position weighted 1/d: Σ(x/d)/Σ(1/d), nearest first.
/// - Gaussian kernel (`GaussianKernel`): the mean x, y of the k likeliest and their most frequent floor.
///
/// Errors are 2-D (x, y) in metres, the floor counted apart (floor success rate).
package struct Holdout: Sendable {
    package let space: HoldoutSpace

    package init(train: [Fingerprint], test: [Fingerprint], set: RadioSet = .combined,
                 options: SignalOptions = SignalOptions(), metersPerUnit: (Fingerprint) -> Double) {
        space = HoldoutSpace(train: train, test: test, set: set, options: options, metersPerUnit: metersPerUnit)
    }

    package struct Prediction: Sendable, Equatable {
        /// Index among the test fingerprints.
        package var test: Int
        /// Metres.
        package var x: Double
        package var y: Double
        package var floor: Int
        package var error: Double
        package var floorHit: Bool
    }

    package struct Result: Sendable {
        package var method: HoldoutMethod
        package var predictions: [Prediction]
        package var summary: HoldoutSummary
    }

    /// Searches over the test set `run(methods)` makes: one for kNN and WKNN
    /// together, one for every Gaussian kernel together; each test fingerprint's is one step of `progress`.
    package static func passes(_ methods: [HoldoutMethod]) -> Int {
        (methods.contains { $0.kind != .gk } ? 1 : 0) + (methods.contains { $0.kind == .gk } ? 1 : 0)
    }

    /// Every method over every test fingerprint. The neighbour search runs
    /// once for the largest k of kNN and WKNN (smaller k take its prefix);
    /// the Gaussian kernels, whatever their σ and k, share one walk over the
    /// training postings per test fingerprint (`GaussianKernels`): a sweep
    /// such as knn1..15,wknn1..15,gk2..8k12 costs about one method of each kind.
    /// `progress` is called once per test fingerprint of each pass (`passes`), for a progress line.
    package func run(_ methods: [HoldoutMethod], progress: (() -> Void)? = nil) -> [Result] {
        guard space.trainCount > 0 else {
            return methods.map { Result(method: $0, predictions: [], summary: HoldoutSummary([])) }
        }
        let neighbours = HoldoutNeighbours(space)
        let maxK = methods.filter { $0.kind != .gk }.map(\.k).max() ?? 0
        var lists: [[HoldoutNeighbours.Neighbour]] = []
        if maxK > 0 {
            var dot = [Int64](repeating: 0, count: space.trainCount)
            lists = (0..<space.testCount).map { t in
                defer { progress?() }
                return neighbours.nearest(test: t, k: maxK, dot: &dot)
            }
        }
        let kernelMethods = methods.filter { $0.kind == .gk }
        // kernelRows[t][j]: the likeliest rows of test t under kernel method j.
        var kernelRows: [[[Int]]] = []
        if !kernelMethods.isEmpty {
            let kernels = GaussianKernels(kernelMethods.map { GaussianKernel(space, sigma: $0.sigma, postings: neighbours) })
            let ks = kernelMethods.map(\.k)
            var scores: [Double] = []
            kernelRows = (0..<space.testCount).map { t in
                defer { progress?() }
                return kernels.likeliest(test: t, ks: ks, scores: &scores)
            }
        }
        return methods.map { method in
            let predictions: [Prediction]
            switch method.kind {
            case .knn, .wknn:
                predictions = (0..<space.testCount).map { t in
                    nearestEstimate(t, lists[t].prefix(method.k), weighted: method.kind == .wknn)
                }
            case .gk:
                let j = kernelMethods.firstIndex(of: method)!
                predictions = (0..<space.testCount).map { t in meanEstimate(t, kernelRows[t][j]) }
            }
            return Result(method: method, predictions: predictions, summary: HoldoutSummary(predictions))
        }
    }

    func nearestEstimate(_ t: Int, _ list: ArraySlice<HoldoutNeighbours.Neighbour>, weighted: Bool) -> Prediction {
        guard let first = list.first else { return outcome(t, x: .nan, y: .nan, floor: Int.min) }
        if first.squared == 0 { return outcome(t, x: space.x[first.row], y: space.y[first.row], floor: space.floor[first.row]) }
        let floor = Self.mode(list.map { space.floor[$0.row] })
        guard weighted else { return meanEstimate(t, list.map(\.row), floor: floor) }
        var sx = 0.0, sy = 0.0, sw = 0.0
        for n in list {
            let w = 1 / n.distance
            sx += w * space.x[n.row]
            sy += w * space.y[n.row]
            sw += w
        }
        return outcome(t, x: sx / sw, y: sy / sw, floor: floor)
    }

    func meanEstimate(_ t: Int, _ rows: [Int], floor: Int? = nil) -> Prediction {
        guard !rows.isEmpty else { return outcome(t, x: .nan, y: .nan, floor: Int.min) }
        var sx = 0.0, sy = 0.0
        for r in rows {
            sx += space.x[r]
            sy += space.y[r]
        }
        let n = Double(rows.count)
        return outcome(t, x: sx / n, y: sy / n, floor: floor ?? Self.mode(rows.map { space.floor[$0] }))
    }

    func outcome(_ t: Int, x: Double, y: Double, floor: Int) -> Prediction {
        let q = space.trainCount + t
        let dx = x - space.x[q], dy = y - space.y[q]
        return Prediction(test: t, x: x, y: y, floor: floor, error: (dx * dx + dy * dy).squareRoot(),
                          floorHit: floor == space.floor[q])
    }

    /// The most frequent value, the smallest among equally frequent ones (Matlab's `mode`).
    static func mode(_ values: [Int]) -> Int {
        let sorted = values.sorted()
        var best = sorted[0], bestCount = 0, i = 0
        while i < sorted.count {
            var j = i
            while j < sorted.count && sorted[j] == sorted[i] { j += 1 }
            if j - i > bestCount {
                best = sorted[i]
                bestCount = j - i
            }
            i = j
        }
        return best
    }
}

/// The figures of one method over the test set: errors in metres (mean,
/// median, the 75th percentile as `prctile` computes it and the 75th and
/// 95th by nearest rank, max) and the floor success rate.
package struct HoldoutSummary: Sendable, Equatable {
    package var count: Int
    package var mean: Double?
    package var median: Double?
    /// Matlab's and Octave's `prctile(errors, 75)`: what the datasets' papers report.
    package var p75Prctile: Double?
    /// fprint's own: the value at rank ⌈p·n⌉.
    package var p75NearestRank: Double?
    package var p95NearestRank: Double?
    package var max: Double?
    package var floorHits: Int
    package var floorSuccessRate: Double?

    package init(_ predictions: [Holdout.Prediction]) {
        let errors = predictions.map(\.error).filter { !$0.isNaN }.sorted()
        count = errors.count
        mean = errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count)
        median = Reduction.median(errors)
        p75Prctile = Percentile.prctile(errors, 75)
        p75NearestRank = ErrorSummary.nearestRank(errors, 0.75)
        p95NearestRank = ErrorSummary.nearestRank(errors, 0.95)
        max = errors.last
        floorHits = predictions.filter(\.floorHit).count
        floorSuccessRate = predictions.isEmpty ? nil : Double(floorHits) / Double(predictions.count)
    }
}
