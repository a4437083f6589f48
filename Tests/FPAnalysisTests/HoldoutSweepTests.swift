import FPCore
import Testing

@testable import FPAnalysis

/// A sweep run together (one neighbour search, one walk over the postings for
/// every kernel) gives each method exactly what the method alone gives.
@Suite struct HoldoutSweepTests {
    /// Few levels, so that exact ties (rows alike in other columns) are common and rounding decides them.
    @Test(arguments: [false, true])
    func methodsTogetherEqualEachAlone(halfDecibels: Bool) {
        var rng = SeededRandom(seed: halfDecibels ? 63 : 64)
        let declared = DeclaredColumns(ids: (0..<40).map { "WIFI:WAP\($0)" })
        let levels: [Double] = halfDecibels ? [-60, -70, -80, -64.5, -91] : [-60.25, -70.1, -80, -64.3]
        func random(_ id: String) -> Fingerprint {
            var readings: [Int: Double] = [:]
            for _ in 0..<Int.random(in: 2...8, using: &rng) {
                readings[Int.random(in: 0..<30, using: &rng)] = levels[Int.random(in: 0..<levels.count, using: &rng)]
            }
            return tablePrint(id, Double.random(in: 0...50, using: &rng), Double.random(in: 0...20, using: &rng),
                              floor: [3, 5][Int.random(in: 0...1, using: &rng)], readings, columns: declared)
        }
        let train = (0..<150).map { random("t\($0)") }
        let test = (0..<80).map { random("q\($0)") }
        let holdout = Holdout(train: train, test: test, metersPerUnit: { _ in 1 })
        #expect(holdout.space.halfDecibels == halfDecibels)
        let methods = ["knn1..15", "wknn1..15", "gk2..8k12", "gk4k1..3", "gk2.5k5"].flatMap { try! HoldoutMethod.expand($0) }
        let together = holdout.run(methods)
        #expect(together.map(\.method) == methods)
        for (method, result) in zip(methods, together) {
            let alone = holdout.run([method])[0]
            #expect(result.predictions == alone.predictions, "\(method)")
            #expect(result.summary == alone.summary, "\(method)")
        }
        // The kernels do differ: a sweep whose methods all agreed would prove nothing.
        #expect(Set(together.filter { $0.method.kind == .gk }.map { $0.predictions.map(\.x) }).count > 3)
    }

    @Test func passesCountOneSearchPerKind() {
        let sweep = ["knn1..15", "wknn1..15", "gk2..8k12"].flatMap { try! HoldoutMethod.expand($0) }
        #expect(Holdout.passes(sweep) == 2)
        #expect(Holdout.passes([HoldoutMethod("gk4k12")!]) == 1)
    }
}
