/// Summary of localisation errors (metres) of one evaluation.
///
/// Errors are sorted ascending (ties keep file order). median: the middle one,
/// or the mean of the two middle ones for an even count (the evaluator's
/// reducer); max: the last. fprint adds: mean (summed in ascending order),
/// p75/p95 by nearest rank (the value at 1-based rank ⌈p·n⌉), the floor hit
/// rate among estimated points, and the unlocalised count (no transmitter in
/// common with any other fingerprint: no estimate, not in the errors).
package struct ErrorSummary: Sendable, Equatable {
    package var count: Int
    package var unlocalised: Int
    package var mean: Double?
    package var median: Double?
    package var p75: Double?
    package var p95: Double?
    package var max: Double?
    package var wrongFloor: Int
    package var floorHitRate: Double?
    /// Indices of estimated fingerprints, worst error first (ties: the later
    /// in file order first, so the first is the evaluator's max).
    package var worst: [Int]
    /// The errors, ascending.
    package var sortedErrors: [Double]

    package init(_ outcomes: [CrossValidation.Outcome]) {
        let estimated = outcomes.filter { $0.error != nil }
        let ordered = estimated.enumerated().sorted { a, b in
            a.element.error! != b.element.error! ? a.element.error! < b.element.error! : a.offset < b.offset
        }.map(\.element)
        let errors = ordered.map { $0.error! }
        sortedErrors = errors
        count = errors.count
        unlocalised = outcomes.count - estimated.count
        wrongFloor = estimated.filter { !$0.floorHit }.count
        floorHitRate = count == 0 ? nil : Double(count - wrongFloor) / Double(count)
        median = Reduction.median(errors)
        max = errors.last
        mean = count == 0 ? nil : errors.reduce(0, +) / Double(count)
        p75 = Self.nearestRank(errors, 0.75)
        p95 = Self.nearestRank(errors, 0.95)
        // The ascending order read backwards, so the worst is the one the
        // evaluator reports as max: among equal errors, the last in file order.
        worst = ordered.reversed().map(\.index)
    }

    /// The value at 1-based rank ⌈p·n⌉ of ascending values.
    package static func nearestRank(_ sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Swift.max(1, Int((p * Double(sorted.count)).rounded(.up)))
        return sorted[Swift.min(rank, sorted.count) - 1]
    }
}
