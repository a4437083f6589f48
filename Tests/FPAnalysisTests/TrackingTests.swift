import FPCore
import Foundation
import Testing

@testable import FPAnalysis

/// Live positioning: the thesis' vectors through the tracker (window → fix →
/// filter), the 2-D filter, floor detection and the window.
@Suite struct TrackingTests {
    func printed(_ value: Double, _ expected: Double, places: Int) -> Bool {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() == (expected * scale).rounded()
    }

    // The thesis' square: beacons at the corners of 10 × 10 m, map units = metres.
    static let corners: [(mac: String, x: Double, y: Double)] = [
        ("A0:00:00:00:00:00", 0, 0), ("A1:00:00:00:00:00", 10, 0), ("A2:00:00:00:00:00", 0, 10), ("A3:00:00:00:00:00", 10, 10),
    ]

    static func squareModel() throws -> MapModel {
        let json = FPCore.JSONValue.array(corners.map { ["mac": .string($0.mac), "x": .double($0.x), "y": .double($0.y)] })
        let locator = BeaconLocator(registry: try BeaconRegistry(json: json, source: "square"), metersPerUnit: 1)
        return MapModel(id: "SQ", floor: nil, metersPerUnit: 1, radiomap: nil, locator: locator)
    }

    @Test func theEndToEndRSSIVectorThroughTheLivePath() throws {
        // RSSI (−80, −84, −83, −85) at the corners, MP −66, n = 2 → refined (3.27454, 3.89896),
        // now as reports every 100 ms into a 2 s window, one position a second.
        var tracker = Tracker(models: [try Self.squareModel()], fixedMap: "SQ", options: .init(method: .beacons))
        var points: [TrackPoint] = []
        for ms in stride(from: 0, through: 3000, by: 100) {
            for (corner, rssi) in zip(Self.corners, [-80.0, -84, -83, -85]) {
                tracker.addBLE(address: corner.mac.lowercased(), rssi: rssi, timeMs: ms)
            }
            if ms > 0 && ms % 1000 == 0, let p = tracker.position(atMs: ms) { points.append(p) }
        }
        #expect(points.count == 3)
        for p in points {
            let fix = try #require(p.beaconsFix)
            #expect(abs(fix.x - 3.27454) < 2e-5 && abs(fix.y - 3.89896) < 2e-5, "\(fix)")
            #expect(fix.transmitters == 4)
            // A walker standing still at one fix: the filter stays on it.
            #expect(abs(p.xM - fix.x) < 1e-9 && abs(p.yM - fix.y) < 1e-9)
        }
        // The filter is sure of more after every agreeing fix.
        #expect(points[2].accuracyM < points[0].accuracyM)
    }

    /// RSSI at which a corner beacon puts the walker exactly `d` metres away (MP −66, n = 2).
    static func rssi(_ d: Double) -> Double { -66 - 20 * log10(d) }

    @Test func theKalmanVectorThroughTheLivePath() throws {
        // The thesis' 1-D filter (σξ² = 1, ση² = 4, u = 0) is the 2-D filter with no
        // acceleration noise, no velocity and a position variance per step: exact
        // ranges to points with x = 3.8 2.1 3.5 2.6 3.9 2.7 (y = 5), fix variance
        // ση² = 4 (--beacons-sigma 2, zero range residuals, no range term) → x̂ as the thesis prints.
        let noise = Kalman2D.Noise(accelerationSD: 0, positionVariancePerStep: 1)
        var tracker = Tracker(models: [try Self.squareModel()], fixedMap: "SQ",
                              options: .init(method: .beacons, windowMs: 1000, walkingSpeed: 0, noise: noise,
                                             beaconsSigma: 2, beaconsRangeSigmaDb: 0))
        let zs = [3.8, 2.1, 3.5, 2.6, 3.9, 2.7]
        var xs: [Double] = []
        for (i, z) in zs.enumerated() {
            let second = (i + 1) * 1000
            for ms in stride(from: second - 900, through: second, by: 100) {
                for c in Self.corners {
                    let d = ((z - c.x) * (z - c.x) + (5 - c.y) * (5 - c.y)).squareRoot()
                    tracker.addBLE(address: c.mac, rssi: Self.rssi(d), timeMs: ms)
                }
            }
            let point = tracker.position(atMs: second)
            let p = try #require(point)
            #expect(abs(try #require(p.beaconsFix).x - z) < 1e-6)
            xs.append(p.xM)
        }
        let want = [3.8, 2.855556, 3.143077, 2.920181, 3.309901, 3.070142]
        for (got, w) in zip(xs, want) { #expect(printed(got, w, places: 6), "\(got) vs \(w)") }
    }

    @Test func the2DFilterIsTheThesisFilterPerAxis() {
        var f = Kalman2D(x: 3.8, y: -1, measurementVariance: 4, velocityVariance: 0,
                         noise: .init(accelerationSD: 0, positionVariancePerStep: 1))
        var gains: [Double] = []
        for (zx, zy) in zip([2.1, 3.5, 2.6, 3.9, 2.7], [-2.0, 0, 1, -1, 0]) {
            f.predict(dt: 1)
            gains.append(f.update(x: zx, y: zy, variance: 4))
        }
        let want = [0.555556, 0.446154, 0.410431, 0.397747, 0.393111]
        for (g, w) in zip(gains, want) { #expect(printed(g, w, places: 6)) }
        #expect(printed(f.x, 3.070142, places: 6))
        #expect(f.velocity.x == 0 && f.velocity.y == 0)
    }

    @Test func constantVelocityFollowsAWalkerAndStepsSteerIt() {
        // A walker at 1 m/s along x, fixes every second with 2 m noise-free: the
        // velocity is learnt and the prediction leads to the next fix.
        var f = Kalman2D(x: 0, y: 0, measurementVariance: 4, velocityVariance: 1, noise: .walking(speed: 1))
        for t in 1...10 {
            f.predict(dt: 1)
            f.update(x: Double(t), y: 0, variance: 4)
        }
        #expect(abs(f.velocity.x - 1) < 0.1 && abs(f.x - 10) < 0.3)
        let before = f.accuracy
        f.predict(dt: 1)
        #expect(abs(f.x - 11) < 0.3 && f.accuracy > before)
        // A step input (0.7 m north over 1 s) moves the position and replaces the velocity.
        f.predict(dt: 1, control: .init(dx: 0, dy: 0.7, variance: 0.04))
        #expect(abs(f.velocity.y - 0.7) < 1e-12 && f.velocity.x == 0 && abs(f.y - 0.7) < 1e-12)
        // Gating: a fix 30 m off is far outside the prediction.
        #expect(f.innovationDistance(x: f.x + 30, y: f.y, variance: 4) > 25)
    }

    @Test func mapChangesOnlyAfterHoldingAndSaysHowSure() {
        let owner = ["BLE:a": "J2NP", "BLE:b": "J2NP", "BLE:c": "J3NP", "BLE:d": "J3NP"]
        var d = MapDetector(owner: owner, hold: 3)
        let onTwo = ["BLE:a": -60.0, "BLE:b": -65, "BLE:c": -85, "BLE:d": -90]
        let onThree = ["BLE:a": -88.0, "BLE:b": -92, "BLE:c": -62, "BLE:d": -66]
        #expect(d.observe([:]) == nil)  // nothing known heard yet
        #expect(d.observe(onTwo)?.map == "J2NP")
        #expect(d.observe(onTwo)?.map == "J2NP")
        // Two windows of J3NP are not enough, a J2NP window between resets the count.
        #expect(d.observe(onThree)?.map == "J2NP")
        #expect(d.observe(onThree)?.map == "J2NP")
        #expect(d.observe(onTwo)?.map == "J2NP")
        #expect(d.observe(onThree)?.map == "J2NP")
        #expect(d.observe(onThree)?.map == "J2NP")
        let changed = d.observe(onThree)
        #expect(changed?.map == "J3NP")
        // Three windows in which J3NP was likelier by ~23 dB: almost certain.
        #expect((changed?.confidence ?? 0) > 0.99)
        // One ambiguous window lowers the confidence without a change.
        let unsure = d.observe(["BLE:a": -70.0, "BLE:c": -71])
        #expect(unsure?.map == "J3NP" && (unsure?.confidence ?? 1) < changed!.confidence)
    }

    @Test func ownersComeFromRegistriesAndWhereTransmittersAreHeardStrongest() throws {
        let fpA = Fingerprint(id: "a", level: "A", x: 0, y: 0, ble: [.init(transmitter: "BLE:x", rssi: -60, time: 0),
                                                                     .init(transmitter: "BLE:y", rssi: -90, time: 0)])
        let fpB = Fingerprint(id: "b", level: "B", x: 0, y: 0, ble: [.init(transmitter: "BLE:x", rssi: -85, time: 0),
                                                                     .init(transmitter: "BLE:y", rssi: -61, time: 0)])
        let models = [MapModel(id: "A", floor: 1, metersPerUnit: 1, radiomap: Radiomap([fpA]), locator: nil),
                      MapModel(id: "B", floor: 2, metersPerUnit: 1, radiomap: Radiomap([fpB]), locator: nil),
                      try Self.squareModel()]
        let owner = MapDetector.owners(models)
        #expect(owner["BLE:x"] == "A" && owner["BLE:y"] == "B" && owner["BLE:a0:00:00:00:00:00"] == "SQ")
    }

    @Test func theWindowHoldsOnlyItsSpan() {
        var w = SignalWindow(lengthMs: 2000)
        for ms in stride(from: 100, through: 5000, by: 100) { w.addBLE(address: "AA:BB", rssi: -Double(ms / 100), timeMs: ms) }
        w.addWiFi(mac: "02:00:00:00:00:01", rssi: -70, timeMs: 4500)
        w.slide(toMs: 5000)
        let fp = w.fingerprint(endMs: 5000)
        #expect(fp.ble.count == 20 && fp.ble.allSatisfy { $0.transmitter == "BLE:aa:bb" })
        #expect(fp.ble.map(\.rssi).max() == -31 && fp.wifi.count == 1)
        #expect(w.count == 21)
    }

    @Test func evaluationSummarisesErrorsAndFloors() {
        var e = TrackEvaluation()
        for (i, dx) in [1.0, 2, 3, 4, 10].enumerated() {
            let p = TrackPoint(timeMs: (i + 1) * 1000, map: i == 4 ? "B" : "A", floor: nil, x: dx, y: 0, metersPerUnit: 1,
                               accuracyM: 1, method: .wknn, transmittersUsed: 3, mapConfidence: nil)
            e.add(p, truthMap: "A", truthX: 0, truthY: 0)
        }
        let s = e.summary!
        #expect(s.medianM == 3 && s.p90M == 10 && s.maxM == 10 && s.floorHitRate == 0.8 && s.firstFixMs == 1000)
    }
}
