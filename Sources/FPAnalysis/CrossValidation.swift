/// Leave-one-out cross-validation as radio-localization-eval runs it: each
/// fingerprint in turn is the unknown, all the others the radiomap.
package struct CrossValidation: Sendable {
    /// One configuration to evaluate.
    package struct Case: Sendable, Hashable, Codable {
        package var set: RadioSet
        package var estimator: Estimator
        package var k: Int
        package init(set: RadioSet, estimator: Estimator, k: Int) {
            self.set = set
            self.estimator = estimator
            self.k = k
        }
    }

    /// The outcome for one left-out fingerprint.
    package struct Outcome: Sendable, Equatable {
        package var index: Int
        /// nil when nothing shares a transmitter with it (the evaluator would crash here).
        package var estimate: Estimate?
        /// metres; nil without an estimate
        package var error: Double?
        package var floorHit: Bool
    }

    package struct Result: Sendable {
        package var evalCase: Case
        package var outcomes: [Outcome]
        package var summary: ErrorSummary
    }

    package let fingerprints: [Fingerprint]
    package let options: SignalOptions
    /// Metres per map unit for a map id (45/2250 for the J building).
    package let metersPerUnit: @Sendable (String) -> Double

    package init(fingerprints: [Fingerprint], options: SignalOptions = SignalOptions(),
                metersPerUnit: @escaping @Sendable (String) -> Double) {
        self.fingerprints = fingerprints
        self.options = options
        self.metersPerUnit = metersPerUnit
    }

    /// Runs every case. The neighbour search runs once per radio set (for the
    /// largest k asked); estimators and smaller k reuse its lists.
    package func run(_ cases: [Case]) -> [Result] {
        var results: [Result] = []
        for set in RadioSet.allCases {
            let mine = cases.filter { $0.set == set }
            guard let maxK = mine.map({ $0.estimator == .nn ? 1 : $0.k }).max() else { continue }
            let space = SignalSpace(fingerprints, set: set, options: options)
            let lists = space.leaveOneOutNeighbours(k: maxK)
            for c in mine { results.append(evaluate(c, lists: lists)) }
        }
        // In the order asked, not the order computed.
        return cases.compactMap { c in results.first { $0.evalCase == c } }
    }

    func evaluate(_ c: Case, lists: [[Neighbour]]) -> Result {
        let fps = fingerprints
        var outcomes: [Outcome] = []
        outcomes.reserveCapacity(fps.count)
        for (i, unknown) in fps.enumerated() {
            let est = c.estimator.estimate(lists[i][...], k: c.k) { (fps[$0].x, fps[$0].y, fps[$0].level) }
            guard let est else {
                outcomes.append(Outcome(index: i, estimate: nil, error: nil, floorHit: false))
                continue
            }
            let dx = est.x - Double(unknown.x), dy = est.y - Double(unknown.y)
            let units = (dx * dx + dy * dy).squareRoot()
            let error = units * metersPerUnit(unknown.level)
            outcomes.append(Outcome(index: i, estimate: est, error: error, floorHit: est.level == unknown.level))
        }
        return Result(evalCase: c, outcomes: outcomes, summary: ErrorSummary(outcomes))
    }
}
