import FPAnalysis
import FPCore
import Foundation
import Testing

@Suite("Beacon proximity: smoothing, distance, classes")
struct ProximityTests {
    /// CoreLocation's thresholds: immediate under 0.5 m, near under 3 m, far beyond.
    @Test(arguments: [(0.1, Proximity.immediate), (0.49, .immediate), (0.5, .near), (2.99, .near), (3.0, .far), (40, .far)])
    func classes(distance: Double, expected: Proximity) {
        #expect(Proximity.of(distance: distance) == expected)
    }

    @Test func noDistanceIsUnknown() {
        #expect(Proximity.of(distance: nil) == .unknown)
        #expect(Proximity.of(distance: .infinity) == .unknown)
    }

    /// At the measured power the beacon is 1 m away; 20 dB weaker is 10 m (exponent 2).
    @Test func distanceFromMeasuredPower() {
        var e = ProximityEstimator()
        e.add(key: "b", rssi: -59, measuredPower: -59, atMs: 0)
        #expect(e.estimate(key: "b", nowMs: 0).distance == 1)
        #expect(e.estimate(key: "b", nowMs: 0).proximity == .near)
        var far = ProximityEstimator()
        far.add(key: "b", rssi: -79, measuredPower: -59, atMs: 0)
        #expect(abs((far.estimate(key: "b", nowMs: 0).distance ?? 0) - 10) < 1e-9)
        #expect(far.estimate(key: "b", nowMs: 0).proximity == .far)
    }

    /// The median of the window: one outlier (a blocked packet) does not move the class.
    @Test func oneOutlierDoesNotMoveTheMedian() {
        var e = ProximityEstimator(windowMs: 5000)
        for (i, rssi) in [-45, -46, -95, -45, -44].enumerated() { e.add(key: "b", rssi: rssi, measuredPower: -59, atMs: i * 200) }
        let estimate = e.estimate(key: "b", nowMs: 1000)
        #expect(estimate.smoothedRSSI == -45)
        #expect(estimate.readings == 5)
        #expect(estimate.proximity == .immediate)  // 10^(-14/20) ≈ 0.2 m
    }

    /// Readings older than the window are gone; none left is unknown.
    @Test func oldReadingsAgeOut() {
        var e = ProximityEstimator(windowMs: 5000)
        e.add(key: "b", rssi: -90, measuredPower: -59, atMs: 0)
        e.add(key: "b", rssi: -50, measuredPower: -59, atMs: 4000)
        #expect(e.estimate(key: "b", nowMs: 4000).smoothedRSSI == -70)
        #expect(e.estimate(key: "b", nowMs: 6000).smoothedRSSI == -50)
        #expect(e.estimate(key: "b", nowMs: 9000).proximity == .unknown)
        #expect(e.estimate(key: "b", nowMs: 9000).readings == 0)
    }

    /// An RSSI but no measured power (neither frame nor registry): a smoothed RSSI, no distance.
    @Test func noMeasuredPowerIsUnknown() {
        var e = ProximityEstimator()
        e.add(key: "b", rssi: -60, measuredPower: nil, atMs: 0)
        let estimate = e.estimate(key: "b", nowMs: 100)
        #expect(estimate.smoothedRSSI == -60)
        #expect(estimate.distance == nil)
        #expect(estimate.proximity == .unknown)
    }

    /// The emulator's reports carry no RSSI (127): sightings, but no reading.
    @Test func reportsWithoutRSSIAreUnknown() {
        var e = ProximityEstimator()
        e.add(key: "b", rssi: nil, measuredPower: -59, atMs: 0)
        let estimate = e.estimate(key: "b", nowMs: 0)
        #expect(estimate.smoothedRSSI == nil && estimate.distance == nil && estimate.readings == 0)
        #expect(estimate.proximity == .unknown)
    }
}
