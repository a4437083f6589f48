import FPCore
import Foundation
import Testing

@testable import FPAnalysis

/// A dataset fingerprint: readings by column index (`WAP` + index), exact position in metres, floor.
func tablePrint(_ id: String, _ x: Double, _ y: Double, floor: Int, _ readings: [Int: Double],
                columns: DeclaredColumns? = nil) -> Fingerprint {
    var fp = Fingerprint(id: id, level: "M-\(floor)", x: Int(x.rounded()), y: Int(y.rounded()),
                         wifi: readings.keys.sorted().map { .init(transmitter: "WIFI:WAP\($0)", rssi: readings[$0]!, time: 0) })
    fp.labels.exactX = x
    fp.labels.exactY = y
    fp.labels.inMetres = true
    fp.labels.floor = floor
    fp.labels.columns = columns
    return fp
}

func predictions(_ train: [Fingerprint], _ test: [Fingerprint], _ method: String) -> [Holdout.Prediction] {
    Holdout(train: train, test: test, metersPerUnit: { _ in 1 }).run([HoldoutMethod(method)!])[0].predictions
}

@Suite struct HoldoutTests {
    @Test func nearestNeighboursTieInTrainingOrderAndDistanceZeroTakesTheFirst() {
        let train = [
            tablePrint("a", 0, 0, floor: 3, [1: -60, 2: -70]),
            tablePrint("b", 10, 0, floor: 5, [1: -62, 2: -70]),  // 2 dB from the query
            tablePrint("c", 20, 0, floor: 5, [1: -60, 2: -72]),  // 2 dB too: after b
            tablePrint("d", 30, 0, floor: 3, [1: -60, 2: -70]),  // equal to a
        ]
        let near = [tablePrint("q", 12, 0, floor: 5, [1: -61, 2: -71])]
        // 1 dB off a and d (√2), 1 dB off b and c (√2): all four tie; k=1 takes a.
        #expect(predictions(train, near, "knn1").map { [$0.x, $0.y] } == [[0, 0]])
        #expect(predictions(train, near, "knn2")[0].x == 5)  // a and b
        // Two of floor 3 and two of floor 5: the lower floor wins the tie.
        #expect(predictions(train, near, "knn4")[0].floor == 3)
        // At distance 0 the first such neighbour is the answer, position and floor, whatever k.
        let exact = [tablePrint("q", 12, 0, floor: 5, [1: -60, 2: -70])]
        let p = predictions(train, exact, "knn4")[0]
        #expect(p.x == 0 && p.y == 0 && p.floor == 3 && !p.floorHit && p.error == 12)
    }

    @Test func weightedNeighbours() {
        let train = [tablePrint("a", 0, 0, floor: 1, [1: -60]), tablePrint("b", 9, 3, floor: 1, [1: -66])]
        // d = 1 and 5 dB: weights 1 and 1/5.
        let p = predictions(train, [tablePrint("q", 1, 1, floor: 1, [1: -61])], "wknn2")[0]
        #expect(abs(p.x - 1.5) < 1e-12 && abs(p.y - 0.5) < 1e-12)
    }

    @Test func notHeardCountsTheFillOnBothSides() {
        // No transmitter in common is still a distance (leave-one-out would call it infinite).
        let train = [tablePrint("a", 0, 0, floor: 1, [1: -100]), tablePrint("b", 5, 0, floor: 1, [2: -50])]
        let p = predictions(train, [tablePrint("q", 0, 0, floor: 1, [3: -104])], "knn1")[0]
        #expect(p.x == 0)  // a: √(5² + 1²); b: √(55² + 1²)
    }

    /// The Gaussian kernel as the Matlab code computes it, term by term in
    /// column order and with a stable descending sort: what the fast path must agree with.
    static func bruteForceKernel(_ train: [Fingerprint], _ q: Fingerprint, universe: [String], sigma: Double, k: Int)
        -> (rows: Set<Int>, floor: Int)
    {
        func values(_ fp: Fingerprint) -> [String: Double] { Dictionary(uniqueKeysWithValues: fp.wifi.map { ($0.transmitter, $0.rssi) }) }
        let qv = values(q)
        let c = 1 / ((2 * Double.pi) * (sigma * sigma)).squareRoot()
        let scores = train.map { fp -> Double in
            let tv = values(fp)
            var s = 0.0
            for id in universe {
                if let a = tv[id], let b = qv[id] {
                    s += log(c * exp(-((a - b) * (a - b)) / (2 * (sigma * sigma))))
                } else {
                    s += log(1e-6)
                }
            }
            return s
        }
        let order = scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        let top = Array(order.prefix(k))
        return (Set(top), Holdout.mode(top.map { train[$0].labels.floor! }))
    }

    /// Rows whose terms are the same numbers in other columns tie in exact
    /// arithmetic and are told apart by rounding alone; the fast path must
    /// pick what the column-by-column sums pick, over declared columns nobody heard too.
    @Test(arguments: [false, true])
    func gaussianKernelPicksWhatColumnByColumnSumsPick(halfDecibels: Bool) {
        var rng = SeededRandom(seed: halfDecibels ? 29 : 30)
        let universe = (0..<40).map { "WIFI:WAP\($0)" }
        let declared = DeclaredColumns(ids: universe)
        let levels: [Double] = halfDecibels ? [-60, -70, -80, -64.5] : [-60.25, -70.1, -80, -64.3]
        func random(_ id: String) -> Fingerprint {
            var readings: [Int: Double] = [:]
            for _ in 0..<Int.random(in: 2...6, using: &rng) {
                readings[Int.random(in: 0..<30, using: &rng)] = levels[Int.random(in: 0..<levels.count, using: &rng)]
            }
            return tablePrint(id, Double.random(in: 0...50, using: &rng), Double.random(in: 0...20, using: &rng),
                              floor: [3, 5][Int.random(in: 0...1, using: &rng)], readings, columns: declared)
        }
        let train = (0..<120).map { random("t\($0)") }
        let test = (0..<60).map { random("q\($0)") }
        let holdout = Holdout(train: train, test: test, metersPerUnit: { _ in 1 })
        #expect(holdout.space.columnCount == 40)
        #expect(holdout.space.halfDecibels == halfDecibels)
        let kernel = GaussianKernel(holdout.space, sigma: 4, postings: HoldoutNeighbours(holdout.space))
        var scores = [Double](repeating: 0, count: train.count)
        for (t, q) in test.enumerated() {
            let fast = kernel.likeliest(test: t, k: 12, scores: &scores)
            let slow = Self.bruteForceKernel(train, q, universe: universe, sigma: 4, k: 12)
            #expect(Set(fast) == slow.rows, "test \(t)")
        }
        let result = holdout.run([HoldoutMethod("gk4k12")!])[0]
        for (t, q) in test.enumerated() {
            #expect(result.predictions[t].floor == Self.bruteForceKernel(train, q, universe: universe, sigma: 4, k: 12).floor)
        }
    }

    @Test func neighboursOffTheHalfDecibelGridAddEveryColumn() {
        let train = [tablePrint("a", 0, 0, floor: 1, [1: -60.3, 2: -70]), tablePrint("b", 4, 0, floor: 1, [1: -60.1])]
        let space = Holdout(train: train, test: [tablePrint("q", 0, 0, floor: 1, [1: -60.2])], metersPerUnit: { _ in 1 }).space
        #expect(!space.halfDecibels)
        let n = HoldoutNeighbours(space)
        var dot: [Int64] = []
        let list = n.nearest(test: 0, k: 2, dot: &dot)
        // b: 0.1² (about); a: 0.1² + 35²
        #expect(list.map(\.row) == [1, 0])
        #expect(list[0].squared == (-60.1 - -60.2) * (-60.1 - -60.2) + 0)
    }

    @Test func summaryFigures() {
        let p = [0.5, 4, 1, 2, 3].enumerated().map { i, e in
            Holdout.Prediction(test: i, x: 0, y: 0, floor: 0, error: e, floorHit: i != 1)
        }
        let s = HoldoutSummary(p)
        #expect(s.count == 5 && s.mean == 2.1 && s.median == 2 && s.max == 4)
        #expect(s.p75Prctile == 3.25)  // position 4.25: x4 + 0.25·(x5 − x4)
        #expect(s.p75NearestRank == 3 && s.p95NearestRank == 4)
        #expect(s.floorHits == 4 && s.floorSuccessRate == 0.8)
    }
}

@Suite struct PercentileTests {
    /// Values Octave 7's prctile gives.
    @Test func asOctavesPrctile() {
        #expect(Percentile.prctile([1, 2, 3, 4], 75) == 3.5)
        #expect(Percentile.prctile([1, 2, 3, 4, 5], 50) == 3)
        #expect(Percentile.prctile([1, 2, 3, 4, 5], 0) == 1)
        #expect(Percentile.prctile([1, 2, 3, 4, 5], 100) == 5)
        #expect(Percentile.prctile([1, 2, 3, 4, 5], 95) == 5)  // position 5.25: beyond the last
        #expect(Percentile.prctile([1, 2, 3, 4, 5], 10) == 1)  // position 1: the first
        #expect(Percentile.prctile([7], 75) == 7)
        #expect(Percentile.prctile([], 75) == nil)
    }
}

@Suite struct SelectionTests {
    func print(_ tags: [String: String], level: String = "UJI-LIB-3", at ms: Int64 = 1_000) -> Fingerprint {
        var fp = Fingerprint(id: "d", level: level, x: 0, y: 0)
        fp.labels.tags = tags.keys.sorted().map { .init($0, tags[$0]!) }
        fp.labels.createdAtMs = ms
        fp.labels.floor = 3
        fp.labels.dataset = "uji"
        return fp
    }

    @Test func termsAlternativesAndNumbers() {
        let fp = print(["month": "01", "campaign": "tst03", "set": "test"])
        func sel(_ terms: [(String, [String])], since: Int64? = nil, until: Int64? = nil) -> Selection {
            Selection(terms: terms.map { .init(key: $0.0, values: $0.1) }, sinceMs: since, untilMs: until)
        }
        #expect(sel([("month", ["1"]), ("set", ["test"])]).matches(fp))
        #expect(sel([("campaign", ["tst01", "tst03"])]).matches(fp))
        #expect(!sel([("campaign", ["trn01"])]).matches(fp))
        #expect(!sel([("point", ["1"])]).matches(fp))  // a tag it lacks
        #expect(sel([("map", ["UJI-LIB-3"]), ("floor", ["3"]), ("dataset", ["uji"])]).matches(fp))
        #expect(sel([], since: 1_000, until: 1_001).matches(fp))
        #expect(!sel([], since: 1_001).matches(fp) && !sel([], until: 1_000).matches(fp))
        #expect(Selection.ordered(["10", "2", "01"]) == ["01", "2", "10"])
        #expect(Selection.ordered(["b", "10", "a"]) == ["10", "a", "b"])
    }
}
