import FPCore
import Foundation
import Testing

@testable import FPAnalysis

/// The worked vectors of ../shared/fixtures/vectors/beacons-and-positioning.md
/// (iBeacon positioning thesis), matched to the precision printed there.
@Suite struct PositioningVectorTests {
    /// Equal when rounded to `places` decimals, as the vectors are printed.
    func printed(_ value: Double, _ expected: Double, places: Int) -> Bool {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() == (expected * scale).rounded()
    }

    @Test func rssiToDistance() {
        // MP −66 dBm at 1 m, RSSI −76: ratio 1.151515; n = 2: 3.162278 m; n = 2.5: 2.511886 m
        #expect(printed(PathLoss.ratio(rssi: -76, measuredPower: -66), 1.151515, places: 6))
        #expect(printed(PathLoss(exponent: 2).distance(rssi: -76, measuredPower: -66), 3.162278, places: 6))
        #expect(printed(PathLoss(exponent: 2.5).distance(rssi: -76, measuredPower: -66), 2.511886, places: 6))
    }

    @Test func closedFormTakesTheLowerZ() throws {
        // beacons (0,0,0) (10,0,0) (0,10,0), r² = 29, 69, 49 → (3, 4, −2)
        let p = try #require(Trilateration.closedForm(
            .init(Vec3(0, 0, 0), 29.0.squareRoot()), .init(Vec3(10, 0, 0), 69.0.squareRoot()),
            .init(Vec3(0, 10, 0), 49.0.squareRoot())))
        #expect(abs(p.x - 3) < 1e-9 && abs(p.y - 4) < 1e-9 && abs(p.z + 2) < 1e-9)
    }

    @Test func closedFormInAGeneralFrame() throws {
        // beacons (2,1,3) (12,1,3) (6,9,3), r² = 22, 62, 30 → (5, 4, 1)
        let p = try #require(Trilateration.closedForm(
            .init(Vec3(2, 1, 3), 22.0.squareRoot()), .init(Vec3(12, 1, 3), 62.0.squareRoot()),
            .init(Vec3(6, 9, 3), 30.0.squareRoot())))
        #expect(abs(p.x - 5) < 1e-9 && abs(p.y - 4) < 1e-9 && abs(p.z - 1) < 1e-9)
    }

    @Test func collinearBeaconsHaveNoClosedForm() {
        #expect(Trilateration.closedForm(.init(Vec3(0, 0), 1), .init(Vec3(5, 0), 4), .init(Vec3(10, 0), 9)) == nil)
    }

    // Square 10 × 10 with beacons in the order (0,0) (10,0) (0,10) (10,10).
    static let corners = [Vec3(0, 0), Vec3(10, 0), Vec3(0, 10), Vec3(10, 10)]

    @Test func noisySquareAverageAndRefinement() throws {
        // d = (5.5, 8, 6, 9.5): the four triple solutions average to (2.8, 4.2);
        // damped Gauss–Newton (step 0.05, correct sign) settles at (2.86027, 4.40099).
        let anchors = zip(Self.corners, [5.5, 8, 6, 9.5]).map { Trilateration.Anchor($0, $1) }
        let avg = try #require(Trilateration.averageOfTriples(anchors, planar: true))
        #expect(abs(avg.x - 2.8) < 1e-9 && abs(avg.y - 4.2) < 1e-9)
        let refined = Trilateration.refine(anchors, from: avg)
        #expect(printed(refined.x, 2.86027, places: 5) && printed(refined.y, 4.40099, places: 5), "\(refined)")
    }

    @Test func theMisprintedUpdateDiverges() throws {
        // Without the minus the iteration climbs away from the solution. The vectors
        // print (13.27, 12.54) after 50 steps; from the square's centre we get
        // (14.47, 12.40): the same flight to the far corner (start point not given).
        let anchors = zip(Self.corners, [5.5, 8, 6, 9.5]).map { Trilateration.Anchor($0, $1) }
        let wrong = Trilateration.refine(anchors, from: Vec3(5, 5), tolerance: 0, maxSteps: 50, sign: +1)
        let right = Trilateration.refine(anchors, from: Vec3(5, 5))
        #expect((wrong - Vec3(2.86027, 4.40099)).length > 10)
        #expect(wrong.x > 12 && wrong.y > 12)
        #expect((right - Vec3(2.86027, 4.40099)).length < 1e-5)
    }

    @Test func endToEndFromRSSI() throws {
        // RSSI (−80, −84, −83, −85), MP −66, n = 2 → d = (5.01187, 7.94328, 7.07946, 8.91251)
        // → triple average (3.31773, 3.96658) → refined (3.27454, 3.89896); true (3, 4).
        let model = PathLoss(exponent: 2)
        let d = [-80.0, -84, -83, -85].map { model.distance(rssi: $0, measuredPower: -66) }
        for (got, want) in zip(d, [5.01187, 7.94328, 7.07946, 8.91251]) { #expect(printed(got, want, places: 5)) }
        let anchors = zip(Self.corners, d).map { Trilateration.Anchor($0, $1) }
        let avg = try #require(Trilateration.averageOfTriples(anchors, planar: true))
        #expect(printed(avg.x, 3.31773, places: 5) && printed(avg.y, 3.96658, places: 5))
        // The least-squares optimum is (3.274525, 3.898946); the vectors' fifth decimal
        // (3.27454, 3.89896) is where a damped run stopped ~165 steps in. Matched within 2e-5.
        let refined = Trilateration.refine(anchors, from: avg)
        #expect(abs(refined.x - 3.27454) < 2e-5 && abs(refined.y - 3.89896) < 2e-5)
        #expect(abs(refined.x - 3.274525) < 1e-6 && abs(refined.y - 3.898946) < 1e-6)
        // Refinement moves towards the true position.
        #expect((refined - Vec3(3, 4)).length < (avg - Vec3(3, 4)).length)
    }

    @Test func kalmanGainsAndEstimates() {
        // x_opt0 = z0, E0 = σ_η² = 4, σ_ξ² = 1, u = 0; z = 3.8 2.1 3.5 2.6 3.9 2.7
        // → x_opt = 3.8 2.855556 3.143077 2.920181 3.309901 3.070142
        //   K = – 0.555556 0.446154 0.410431 0.397747 0.393111; long-run K 0.390388
        let k = Kalman1D(processVariance: 1, measurementVariance: 4)
        let (values, gains) = k.smooth([3.8, 2.1, 3.5, 2.6, 3.9, 2.7])
        let wantX = [3.8, 2.855556, 3.143077, 2.920181, 3.309901, 3.070142]
        let wantK = [0.555556, 0.446154, 0.410431, 0.397747, 0.393111]
        #expect(values.count == 6 && gains.first! == nil)
        for (got, want) in zip(values, wantX) { #expect(printed(got, want, places: 6), "\(got) vs \(want)") }
        for (got, want) in zip(gains.dropFirst().map { $0! }, wantK) { #expect(printed(got, want, places: 6)) }
        #expect(printed(k.steadyStateGain, 0.390388, places: 6))
    }
}

@Suite struct BeaconRegistryTests {
    @Test func readsTheFimShapeSkippingNullsAndUnplacedBeacons() throws {
        let json: FPCore.JSONValue = [nil, ["mac": "c5:d5:21:51:d7:90", "x": 1441, "y": 303, "floor": "J3NP"],
                                      ["mac": "EF:27:2F:DC:9A:06", "major": 1], ["mac": "AA:00:00:00:00:01", "x": 0, "y": 0, "measuredPower": -70]]
        let r = try BeaconRegistry(json: json, source: "reg.json")
        #expect(r.entries.map(\.mac) == ["C5:D5:21:51:D7:90", "AA:00:00:00:00:01"])
        #expect(r.entries[1].measuredPower == -70 && r.entries[0].measuredPower == nil)
        #expect(throws: FingerprintError("reg.json: $[0].mac: expected a MAC address (or an iBeacon uuid/major/minor, or an Eddystone namespace/instance)")) {
            try BeaconRegistry(json: [["x": 1]], source: "reg.json")
        }
    }

    @Test func beaconsAloneRecoverThePointOfTheVectors() throws {
        // The end-to-end vector in map units with 1 unit = 1 m: RSSI (−80, −84, −83, −85) at the
        // corners of the 10 × 10 square → (3.27, 3.90).
        let json: FPCore.JSONValue = [["mac": "A0:00:00:00:00:00", "x": 0, "y": 0], ["mac": "A1:00:00:00:00:00", "x": 10, "y": 0],
                                      ["mac": "A2:00:00:00:00:00", "x": 0, "y": 10], ["mac": "A3:00:00:00:00:00", "x": 10, "y": 10]]
        let locator = BeaconLocator(registry: try BeaconRegistry(json: json, source: "r"), metersPerUnit: 1)
        let fp = Fingerprint(id: "q", level: "T", x: 3, y: 4, ble: zip(0..<4, [-80.0, -84, -83, -85]).map {
            .init(transmitter: Fingerprint.bleID("A\($0):00:00:00:00:00"), rssi: $1, time: 0)
        })
        let r = try #require(locator.locate(fp))
        #expect(abs(r.x - 3.27454) < 2e-5 && abs(r.y - 3.89896) < 2e-5)
        // Fewer than three heard: no estimate.
        #expect(locator.locate(Fingerprint(id: "q", level: "T", x: 0, y: 0, ble: Array(fp.ble.prefix(2)))) == nil)
    }
}
