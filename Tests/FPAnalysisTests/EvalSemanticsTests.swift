import FPCore
import Testing

@testable import FPAnalysis

/// Hand-computed cases that pin radio-localization-eval's semantics
/// (Run.crossValidate, WKNNPositionEstimator, SignalSpaceDistanceCalculator,
/// SignalSeriesReducer). Expected values were worked out by hand and the
/// floating-point ones checked with IEEE doubles (Python), digit for digit.
@Suite struct EvalSemanticsTests {
    @Test func medianOfOddAndEvenSeries() {
        #expect(Reduction.median([-70, -60, -80]) == -70)
        // sorted −80 −70 −65 −60: (−70 + −65) / 2
        #expect(Reduction.median([-70, -60, -80, -65]) == -67.5)
        #expect(Reduction.median([]) == nil)
    }

    @Test func maxTimeKeepsSamplesUpToAndIncludingTheLimit() {
        // WIFI:A at times 0, 100, 200 with −50, −60, −90.
        let fp = wifiPrint("a", 0, 0, ["A": [-50, -60, -90]])
        #expect(Reduction.reduce(fp, set: .wifi, options: .init(maxTimeMs: 100)) == ["WIFI:A": -55])
        #expect(Reduction.reduce(fp, set: .wifi, options: .init(maxTimeMs: 200)) == ["WIFI:A": -60])
        #expect(Reduction.reduce(fp, set: .wifi, options: .init(maxTimeMs: -1)) == [:])
    }

    @Test func transmitterIdsFollowTheEvaluator() throws {
        let body: JSONValue = [
            "x": 3, "y": 4, "level": "J3NP",
            "bleScans": [["address": "C5:D5:21:51:D7:90", "rssi": -70, "time": 5],
                         ["address": "C5:D5:21:51:D7:90", "rssi": nil, "time": 6]],
            "wifiScans": [["mac": "7A:42:BD:F2:21:00", "ssid": "eduroam", "rssi": -60, "time": 7]],
        ]
        let fp = try Fingerprint(id: "d1", body: body)
        // BLE lowercased, Wi-Fi as stored; the RSSI-less report is skipped.
        #expect(fp.ble == [.init(transmitter: "BLE:c5:d5:21:51:d7:90", rssi: -70, time: 5)])
        #expect(fp.wifi == [.init(transmitter: "WIFI:7A:42:BD:F2:21:00", rssi: -60, time: 7)])
        let combined = Reduction.reduce(fp, set: .combined, options: .init())
        #expect(combined == ["BLE:c5:d5:21:51:d7:90": -70, "WIFI:7A:42:BD:F2:21:00": -60])
        // The BLE weight scales BLE medians in the combined set only.
        #expect(Reduction.reduce(fp, set: .combined, options: .init(bleWeight: 0.5))["BLE:c5:d5:21:51:d7:90"] == -35)
        #expect(Reduction.reduce(fp, set: .ble, options: .init(bleWeight: 0.5))["BLE:c5:d5:21:51:d7:90"] == -70)
    }

    @Test func fractionalPositionIsRejectedWithTheDocumentAndKey() {
        #expect(throws: FingerprintError("document d2: x is 363.5, not a whole number of map units")) {
            try Fingerprint(id: "d2", body: ["x": 363.5, "y": 1])
        }
    }

    // Case A (Wi-Fi, zero signal −105):
    //   F0 a (0,0)     A: −50,−60 → −55   B: −70
    //   F1 b (100,0)   A: −55             B: −70,−71,−72 → −71
    //   F2 c (0,100)   A: −60             C: −80
    //   F3 d (50,50)   D: −40  (nothing in common with anyone: infinitely far)
    // d(F0,F1) = √(0² + 1²) = 1
    // d(F0,F2) = √(5² + 35² + 25²) = √1875 = 43.30127…   (B missing in F2, C missing in F0 → −105)
    // d(F1,F2) = √(5² + 34² + 25²) = √1806 = 42.49706…
    static let caseA = [
        wifiPrint("a", 0, 0, ["A": [-50, -60], "B": [-70]]),
        wifiPrint("b", 100, 0, ["A": [-55], "B": [-70, -71, -72]]),
        wifiPrint("c", 0, 100, ["A": [-60], "C": [-80]]),
        wifiPrint("d", 50, 50, ["D": [-40]]),
    ]

    @Test func caseADistances() {
        let space = SignalSpace(Self.caseA, set: .wifi, options: .init())
        #expect(space.distance(0, 1) == 1)
        #expect(space.distance(0, 2) == (1875.0).squareRoot())
        #expect(space.distance(1, 2) == (1806.0).squareRoot())
        #expect(space.distance(0, 3) == .infinity)
    }

    @Test func caseANearestNeighbour() {
        // F0 → F1 (100,0): 100 units = 2 m; F1 → F0: 2 m; F2 → F1 (42.5 < 43.3): √(100²+100²) = 141.42 units;
        // F3: no estimate (the evaluator would stop with a NullPointerException).
        let r = run(Self.caseA, .nn, k: 1)
        #expect(r.outcomes.map(\.error) == [2, 2, 2.8284271247461903, nil])
        #expect(r.summary.count == 3 && r.summary.unlocalised == 1)
        #expect(r.summary.median == 2 && r.summary.max == 2.8284271247461903)
        #expect(r.summary.p75 == 2.8284271247461903)  // rank ⌈0.75·3⌉ = 3
        #expect(r.summary.worst.map { Self.caseA[$0].id } == ["c", "b", "a"])  // equal errors: the later first
    }

    @Test func caseAKNNAveragesTheTwoNearest() {
        // F0: F1 (100,0) and F2 (0,100) → (50,50): √5000 units = 1.41421… m
        // F1: F0 (0,0) and F2 (0,100) → (0,50): √(100² + 50²) = 111.8 units = 2.23607 m
        // F2: F1 then F0 → (50,0): 2.23607 m
        let r = run(Self.caseA, .knn, k: 2)
        #expect(r.outcomes.map(\.error) == [1.4142135623730951, 2.23606797749979, 2.23606797749979, nil])
        // even count: the mean of the two middle errors (1.414…, 2.236…, 2.236…): middle one is 2.236…
        #expect(r.summary.median == 2.23606797749979)
    }

    @Test func caseAWeightedKNN() {
        // F0: w1 = 1/1, w2 = 1/√1875; x = ((0 + 1·100) + w2·0) / ((0 + 1) + w2) = 97.7427…,
        // y = ((0 + 1·0) + w2·100) / (1 + w2) = 2.25727…; error √(x² + y²)·0.02 m
        let r = run(Self.caseA, .wknn, k: 2)
        #expect(r.outcomes[0].estimate == Estimate(x: 97.74272837837664, y: 2.257271621623369, level: "J1NP"))
        #expect(r.outcomes[0].error == 1.9553757926314728)
    }

    // Case B: ties and distance 0 (Wi-Fi A only).
    //   F0 (0,0) −50   F1 (10,0) −60   F2 (20,0) −40   F3 (30,0) −60
    //   d01 = d02 = d03 = 10, d12 = 20, d13 = 0, d23 = 20
    // Neighbour order (ties in file order): F0: 1,2,3  F1: 3,0,2  F2: 0,1,3  F3: 1,0,2
    static let caseB = [
        wifiPrint("b0", 0, 0, ["A": [-50]]), wifiPrint("b1", 10, 0, ["A": [-60]]),
        wifiPrint("b2", 20, 0, ["A": [-40]]), wifiPrint("b3", 30, 0, ["A": [-60]]),
    ]

    @Test func tiesGoToFileOrder() {
        let lists = SignalSpace(Self.caseB, set: .wifi, options: .init()).leaveOneOutNeighbours(k: 3)
        #expect(lists.map { $0.map(\.index) } == [[1, 2, 3], [3, 0, 2], [0, 1, 3], [1, 0, 2]])
        // NN errors: F0 → F1: 10 units; F1 → F3: 20; F2 → F0: 20; F3 → F1: 20 (× 0.02 m)
        #expect(run(Self.caseB, .nn, k: 1).outcomes.map(\.error) == [0.2, 0.4, 0.4, 0.4])
        // KNN k=2 for F2 takes F0 and F1 (tie with F3 goes to F1): x = 5, error 15 units = 0.3 m
        #expect(run(Self.caseB, .knn, k: 2).outcomes[2].error == 0.3)
        // KNN k=3 for F0: (10 + 20 + 30) / 3 = 20: error 20 units
        #expect(run(Self.caseB, .knn, k: 3).outcomes[0].error == 0.4)
    }

    @Test func zeroDistanceWeighsOneOverTenThousandth() {
        // F1: F3 at d = 0 → w = 1/0.0001 = 10000, F0 at d = 10 → w = 0.1:
        // x = ((0 + 10000·30) + 0.1·0) / ((0 + 10000) + 0.1) = 29.99970000299997; error |x − 10|·0.02
        let r = run(Self.caseB, .wknn, k: 2)
        #expect(r.outcomes[1].estimate?.x == 29.99970000299997)
        #expect(r.outcomes[1].error == 0.3999940000599994)
    }

    @Test func weightedKOneCanDifferFromNNInTheLastBit() {
        // F1 at (0,0) −53 has its only neighbour F0 at (7,0) −50, d = 3, w = 1/3:
        // (0 + w·7) / (0 + w) = 6.999999999999999, not 7.
        let fps = [wifiPrint("f0", 7, 0, ["A": [-50]]), wifiPrint("f1", 0, 0, ["A": [-53]])]
        #expect(run(fps, .nn, k: 1).outcomes[1].error == 0.14)
        #expect(run(fps, .knn, k: 1).outcomes[1].error == 0.14)
        #expect(run(fps, .wknn, k: 1).outcomes[1].estimate?.x == 6.999999999999999)
        #expect(run(fps, .wknn, k: 1).outcomes[1].error == 0.13999999999999999)
    }

    @Test func zeroSignalChangesDistances() {
        // A: −50 vs −60 and B heard only by the second at −70:
        // z = −105: √(10² + 35²) = √1325;  z = −90: √(10² + 20²) = √500
        let fps = [wifiPrint("a", 0, 0, ["A": [-50]]), wifiPrint("b", 1, 0, ["A": [-60], "B": [-70]])]
        #expect(SignalSpace(fps, set: .wifi, options: .init()).distance(0, 1) == (1325.0).squareRoot())
        #expect(SignalSpace(fps, set: .wifi, options: .init(zeroSignal: -90)).distance(0, 1) == (500.0).squareRoot())
    }

    @Test func wrongFloorIsCountedButStillMeasured() {
        // a (0,0) −50 J1NP, b (100,0) −60 J1NP, c (0,50) −51 J2NP, d (110,0) −61 J1NP.
        // a → c (d 1): floor J2NP, a miss; c → a: a miss; b ↔ d (d 1): hits.
        // The error of a miss is still the plain map distance (50 units = 1 m), as the evaluator computes it.
        let fps = [wifiPrint("a", 0, 0, ["A": [-50]]), wifiPrint("b", 100, 0, ["A": [-60]]),
                   wifiPrint("c", 0, 50, level: "J2NP", ["A": [-51]]), wifiPrint("d", 110, 0, ["A": [-61]])]
        let r = run(fps, .nn, k: 1)
        #expect(r.outcomes.map(\.floorHit) == [false, true, false, true])
        #expect(r.outcomes[0].estimate?.level == "J2NP")
        #expect(r.outcomes[0].error == 1 && r.outcomes[2].error == 1)
        #expect(r.summary.wrongFloor == 2)
        #expect(r.summary.floorHitRate == 0.5)
    }

    @Test func outsideQueryCountsUnknownTransmitters() {
        // Radiomap F0 (A −50), F1 (A −60). Query: A −55, Z −75 (Z unknown to the map):
        // d0 = √(5² + 30²) = √925, d1 = √925: tie → F0 first.
        let space = SignalSpace([wifiPrint("a", 0, 0, ["A": [-50]]), wifiPrint("b", 9, 0, ["A": [-60]])],
                                set: .wifi, options: .init())
        let n = space.neighbours(of: ["WIFI:A": -55, "WIFI:Z": -75], k: 2)
        #expect(n == [Neighbour(index: 0, distance: (925.0).squareRoot()), Neighbour(index: 1, distance: (925.0).squareRoot())])
        #expect(space.neighbours(of: ["WIFI:Z": -75], k: 2).isEmpty)
    }
}

@Suite struct SignalSpaceConsistencyTests {
    /// The fast layout must give exactly the medians of the plain reducer, for
    /// every set, time limit and BLE weight, on seeded random fingerprints.
    @Test(arguments: [(RadioSet.wifi, nil, 1.0), (.ble, 300, 1.0), (.combined, nil, 0.8), (.combined, 150, 1.0)] as [(RadioSet, Int?, Double)])
    func fastLayoutEqualsThePlainReducer(set: RadioSet, maxTime: Int?, weight: Double) {
        var rng = SeededRandom(seed: 11)
        var fps: [Fingerprint] = []
        for i in 0..<30 {
            var fp = Fingerprint(id: "f\(i)", level: "J1NP", x: i, y: 0)
            for _ in 0..<40 {
                let t = Int.random(in: 0..<12, using: &rng)
                let s = Fingerprint.Sample(transmitter: t < 6 ? "BLE:aa:\(t)" : "WIFI:BB:\(t)",
                                           rssi: Double(Int.random(in: -99 ... -40, using: &rng)),
                                           time: Int.random(in: 0...400, using: &rng))
                if t < 6 { fp.ble.append(s) } else { fp.wifi.append(s) }
            }
            fps.append(fp)
        }
        let options = SignalOptions(maxTimeMs: maxTime, bleWeight: weight)
        let fast = SignalSpace(fps, set: set, options: options)
        let plain = SignalSpace(reduced: fps.map { Reduction.reduce($0, set: set, options: options) },
                                zeroSignal: options.zeroSignal)
        #expect(fast.transmitters == plain.transmitters)
        #expect(fast.values == plain.values && fast.masks == plain.masks)
        #expect(fast.leaveOneOutNeighbours(k: 3) == plain.leaveOneOutNeighbours(k: 3))
    }

    /// The pairwise search equals a brute-force scan in the evaluator's way:
    /// repeatedly take the first strictly smallest finite distance in file order.
    @Test func pairSearchEqualsRepeatedFirstMinimum() {
        var rng = SeededRandom(seed: 5)
        let fps = (0..<40).map { i in
            wifiPrint("p\(i)", i, 0, Dictionary((0..<3).map { _ -> (String, [Double]) in
                ("M\(Int.random(in: 0..<8, using: &rng))", [Double(Int.random(in: -70 ... -60, using: &rng))])
            }, uniquingKeysWith: { a, _ in a }))
        }
        let space = SignalSpace(fps, set: .wifi, options: .init())
        let fast = space.leaveOneOutNeighbours(k: 3)
        for i in fps.indices {
            var pool = fps.indices.filter { $0 != i }
            var slow: [Neighbour] = []
            for _ in 0..<3 {
                var best: Int?
                for j in pool where best == nil || space.distance(i, j) < space.distance(i, best!) { best = j }
                guard let b = best, space.distance(i, b) < Double.infinity else { break }
                slow.append(Neighbour(index: b, distance: space.distance(i, b)))
                pool.removeAll { $0 == b }
            }
            #expect(fast[i] == slow, "row \(i)")
        }
    }
}
