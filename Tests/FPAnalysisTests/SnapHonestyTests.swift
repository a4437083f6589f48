import Foundation
import FPCore
import Testing

@testable import FPAnalysis

/// Issue 59: when WKNN snaps to a lookalike place, the stated accuracy covers
/// the place the walker truly is, and a floor change waits for the stairs.
@Suite struct SnapHonestyTests {
    /// A walk's survey along a 40 m corridor, a document every 2 m: `a` fades
    /// along it and `b` grows, so every place reads as itself only.
    static func corridor() -> MapModel {
        var fps: [Fingerprint] = []
        for x in stride(from: 0.0, through: 40, by: 2) {
            for (n, noise) in [-1.0, 0, 1].enumerated() {
                var fp = Fingerprint(id: "\(x)-\(n)", level: "C", x: Int(x), y: 0,
                                     ble: [.init(transmitter: Fingerprint.bleID("a"), rssi: a(x) + noise, time: 0),
                                           .init(transmitter: Fingerprint.bleID("b"), rssi: b(x) - noise, time: 0)])
                fp.labels.exactX = x
                fp.labels.exactY = 0
                fps.append(fp)
            }
        }
        return MapModel(id: "C", floor: nil, metersPerUnit: 1, radiomap: Radiomap(fps), locator: nil)
    }

    static func a(_ x: Double) -> Double { -50 - x }
    static func b(_ x: Double) -> Double { -90 + x }

    @Test func aSnapToALookalikeTenMetresAwayIsCoveredByTheStatedAccuracy() throws {
        let model = Self.corridor()
        #expect(model.sparseCells != nil)
        var tracker = Tracker(models: [model], fixedMap: "C", options: .init(method: .wknn))
        var after: [TrackPoint] = []
        // The walker stands at 10 m throughout; for 20 s the signals say so, then they read as at 20 m.
        for ms in stride(from: 100, through: 26_000, by: 100) {
            let heardAt = ms <= 20_000 ? 10.0 : 20.0
            tracker.addBLE(address: "a", rssi: Self.a(heardAt), timeMs: ms)
            tracker.addBLE(address: "b", rssi: Self.b(heardAt), timeMs: ms)
            guard ms % 1000 == 0, let p = tracker.position(atMs: ms) else { continue }
            if ms == 20_000 { #expect(abs(p.x - 10) < 1 && p.accuracyM < 4, "settled: \(p.x) ± \(p.accuracyM)") }
            if ms > 20_000 && ms <= 24_000 { after.append(p) }
            // What it was made of goes with every position on a sparse survey, and makes it.
            let parts = try #require(p.accuracyParts)
            #expect(p.accuracyM == parts.stated)
        }
        #expect(after.count == 4)
        // The filter follows the lookalike (the signals say nothing else)…
        #expect(try #require(after.last).x > 15, "\(after.map(\.x))")
        // …but its stated accuracy grows with the jump: 2–3 s after it, at least 40 % of the way to the true
        // place (10 m), where the Kalman covariance and the belief alone say ~2 m. Not all the way: the filter
        // overshoots the lookalike by its velocity (x ≈ 23 at 23 s) while the remembered jump fades (issue 59, open).
        let settled = 4.0
        for p in after[1...2] {
            #expect(p.accuracyM >= 0.4 * abs(p.x - 10) && p.accuracyM > settled, "at \(p.timeMs) ms: \(p.x) ± \(p.accuracyM)")
        }
    }

    /// The stated accuracy: the largest of its parts; a belief that may have lost the walker counts for little.
    @Test func theStatedAccuracyCoversTheBeliefsPlacesLessWhenTheBeliefMayBeLost() {
        func parts(kalman: Double = 2, mode: Double = 1, radius: Double = 1, near: Double = 1, snap: Double = 0) -> AccuracyParts {
            AccuracyParts(kalmanM: kalman, belief: .init(modeM: mode, radiusM: radius, shareNear: near), snapM: snap)
        }
        // Settled: the Kalman covariance's share, exact at the reference and growing faster than it.
        #expect(abs(parts(kalman: 3).stated - 2.25) < 0.01)
        #expect(parts(kalman: 2).stated < 2.0 / 3 * 2.25 && parts(kalman: 6).stated > 2 * 2.25)
        let settled = parts().stated
        // The belief's best place 8 m off the track (a drift): half that distance.
        #expect(parts(mode: 8, radius: 8, near: 0).stated == 4)
        // 20 m off with nothing near the track: it or the track has lost the walker; a small share of it.
        #expect(abs(parts(mode: 20, radius: 20, near: 0).stated - 3) < 1e-9)
        #expect(parts(mode: 20, radius: 20, near: 0).stated < parts(mode: 11, radius: 11, near: 0).stated)
        #expect(parts(mode: 9, radius: 9, near: 0).stated > settled)
        // Half the belief at the track, half 28 m away (a lookalike): its 63 % radius's share.
        #expect(abs(parts(mode: 28, radius: 28, near: 0.5).stated - 11.2) < 1e-9)
        // A jump just remembered outweighs them.
        #expect(parts(mode: 8, radius: 8, near: 0, snap: 10).stated == 11)
        // Each part widens it, none narrows it.
        let base = parts(kalman: 3, mode: 5, radius: 5, near: 0.5, snap: 2)
        for wider in [parts(kalman: 4, mode: 5, radius: 5, near: 0.5, snap: 2), parts(kalman: 3, mode: 7, radius: 5, near: 0.5, snap: 2),
                      parts(kalman: 3, mode: 5, radius: 9, near: 0.5, snap: 2), parts(kalman: 3, mode: 5, radius: 5, near: 0.5, snap: 3)] {
            #expect(wider.stated >= base.stated)
        }
    }

    /// The walk's recent Kalman level: a noisy stretch widens the Kalman part, a quiet one narrows it; a jump or
    /// a drift, measured distances, are what they are.
    @Test func theRecentLevelOfTheWalkScalesTheKalmanPart() {
        var recent = RecentKalman()
        #expect(abs(recent.note(2, atMs: 0) - 2) < 1e-9)
        // One fade later at 4 m, the level has moved 1 − 1/e of the way (geometrically)…
        let moved = recent.note(4, atMs: 10_000)
        #expect(abs(moved - exp(exp(-1) * log(2.0) + (1 - exp(-1)) * log(4.0))) < 1e-9)
        // …and held there, it reaches it.
        for s in 2...12 { _ = recent.note(4, atMs: s * 10_000) }
        #expect(abs(recent.note(4, atMs: 130_000) - 4) < 0.01)
        func parts(recent: Double, snap: Double = 0, mode: Double = 1) -> AccuracyParts {
            AccuracyParts(kalmanM: 3, belief: .init(modeM: mode, radiusM: 1, shareNear: 1), snapM: snap, recentKalmanM: recent)
        }
        // Twice as noisy lately, the Kalman part √2 wider; half, √2 narrower.
        let usual = parts(recent: 3).stated
        #expect(abs(usual - 0.75 * 3 * 3 / AccuracyParts.kalmanReferenceM) < 1e-9)
        #expect(abs(parts(recent: 6).stated - usual * 2.0.squareRoot()) < 1e-9)
        #expect(abs(parts(recent: 1.5).stated - usual / 2.0.squareRoot()) < 1e-9)
        // A remembered jump (10 m) or a drift (9 m off) outweighing it stays as it is.
        for (snap, mode, stated) in [(10.0, 1.0, 11.0), (0, 9, 4.5)] {
            #expect(abs(parts(recent: 1.5, snap: snap, mode: mode).stated - stated) < 1e-9)
            #expect(abs(parts(recent: 3, snap: snap, mode: mode).stated - stated) < 1e-9)
        }
    }

    /// Two floors; J3NP heard over J2NP mid-corridor (far from its stairs) must not move the report there.
    @Test func aFloorChangeWaitsUntilTheWalkerIsNearTheStairs() {
        let owner = ["BLE:a": "J2NP", "BLE:c": "J3NP"]
        var d = MapDetector(owner: owner, hold: 1)
        let onThree = ["BLE:a": -90.0, "BLE:c": -60]
        #expect(d.observe(["BLE:a": -60, "BLE:c": -90])?.map == "J2NP")
        // Far from the stairs: held back however sure the other floor is…
        for _ in 0..<4 { #expect(d.observe(onThree, mayChange: false)?.map == "J2NP") }
        // …and taken as soon as the walker is near them.
        #expect(d.observe(onThree, mayChange: true)?.map == "J3NP")
    }
}
