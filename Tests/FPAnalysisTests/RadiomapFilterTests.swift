import Testing

@testable import FPAnalysis

/// The Bayes filter over a radiomap's cells: how cells are made from a
/// survey, when a survey is dense enough for them, and that a walker cannot
/// jump to a lookalike place across the floor between two windows.
@Suite struct RadiomapFilterTests {
    /// A fingerprint at an exact point (metres), BLE readings by address.
    static func fingerprint(_ x: Double, _ y: Double, _ readings: [(String, Double)]) -> Fingerprint {
        var fp = Fingerprint(id: "\(x),\(y)", level: "F", x: Int(x), y: Int(y),
                             ble: readings.map { .init(transmitter: Fingerprint.bleID($0.0), rssi: $0.1, time: 0) })
        fp.labels.exactX = x
        fp.labels.exactY = y
        fp.labels.inMetres = true
        return fp
    }

    @Test func cellsAverageTheirFingerprintsAndLearnTheNoiseWithinThem() {
        // Three fingerprints in the cell [0, 0.5)², one in [1, 1.5) × [0, 0.5).
        let cells = RadiomapCells([
            Self.fingerprint(0.1, 0.1, [("a", -60), ("b", -70)]),
            Self.fingerprint(0.2, 0.3, [("a", -64)]),
            Self.fingerprint(0.3, 0.2, [("a", -62)]),
            Self.fingerprint(1.2, 0.1, [("a", -80), ("b", -50)]),
        ], metersPerUnit: 1)
        #expect(cells.count == 2 && cells.columns == ["BLE:a", "BLE:b"])
        #expect(abs(cells.x[0] - 0.2) < 1e-12 && abs(cells.y[0] - 0.2) < 1e-12)
        // a: the mean of three; b heard in one of three fingerprints: not this cell's.
        #expect(cells.values[0] == -62 && cells.values[1] == nil)
        #expect(cells.values[2] == -80 && cells.values[3] == -50)
        // Squares about a's mean (4 + 4 + 0) over 2 degrees of freedom.
        #expect(abs(cells.withinCellSD - 2) < 1e-12)
    }

    @Test func aGridSurveyIsDenseAWalksDocumentsAreNot() {
        let grid = (0..<10).flatMap { i in (0..<10).map { j in Self.fingerprint(Double(i) * 0.5, Double(j) * 0.5, [("a", -60)]) } }
        #expect(RadiomapCells(grid, metersPerUnit: 1).dense)
        let walk = (0..<20).map { Self.fingerprint(Double($0) * 2, 0, [("a", -60)]) }
        #expect(!RadiomapCells(walk, metersPerUnit: 1).dense)
        // The same in map units of 2 cm: 25 units are half a metre.
        let units = (0..<10).flatMap { i in (0..<10).map { j in Self.fingerprint(Double(i) * 25, Double(j) * 25, [("a", -60)]) } }
        #expect(RadiomapCells(units, metersPerUnit: 0.02).dense)
    }

    /// A corridor 10 m long, surveyed every 0.5 m: transmitter `a` fades along
    /// it, `b` is −70 everywhere but at 9 m, where the place looks like 1 m.
    static func corridor() -> RadiomapCells {
        var fps: [Fingerprint] = []
        for x in stride(from: 0.0, through: 10, by: 0.5) {
            let a: Double = -50 - 3 * x, b: Double = x == 9 ? -90 : -70
            for _ in 0..<3 { fps.append(Self.fingerprint(x + 0.25, 0.25, [("a", a), ("b", b)])) }
        }
        return RadiomapCells(fps, metersPerUnit: 1)
    }

    @Test func theWalkerCannotJumpToALookalikeAcrossTheFloor() throws {
        var filter = RadiomapFilter(cells: Self.corridor(), speed: 1, matchSD: 3)
        // Two windows at 1 m: the belief settles there.
        for ms in [0, 1000] { filter.update(atMs: ms, reduced: ["BLE:a": -53, "BLE:b": -70], bleOnly: true, wifiOnly: false) }
        let settled = try #require(filter.estimate)
        #expect(abs(settled.x - 1.25) < 0.3, "\(settled)")
        // One second later a window that matches the far place at 9 m best
        // (b: −90 is 9 m's alone; a: −70 is 7 dB off 9 m's −77, 17 off 1 m's −53).
        filter.update(atMs: 2000, reduced: ["BLE:a": -70, "BLE:b": -90], bleOnly: true, wifiOnly: false)
        let next = try #require(filter.estimate)
        #expect(next.x < 4, "a walker at 1 m cannot be at 9 m a second later: \(next.x)")
        // Alone, the same window is the far place.
        var fresh = RadiomapFilter(cells: Self.corridor(), speed: 1, matchSD: 3)
        fresh.update(atMs: 0, reduced: ["BLE:a": -70, "BLE:b": -90], bleOnly: true, wifiOnly: false)
        #expect(try #require(fresh.estimate).x > 7)
    }

    @Test func theBeliefFollowsAWalkerAndItsSpreadIsTheAccuracy() throws {
        var filter = RadiomapFilter(cells: Self.corridor(), speed: 1, matchSD: 3)
        var spreads: [Double] = []
        for step in 0...8 {
            let x = Double(step)
            let reduced: [String: Double] = ["BLE:a": -50 - 3 * x, "BLE:b": -70]
            filter.update(atMs: step * 1000, reduced: reduced, bleOnly: true, wifiOnly: false)
            let e = try #require(filter.estimate)
            // The first windows, two transmitters' worth of evidence, leave it vague.
            guard step >= 2 else { continue }
            // A belief spreads in every direction, so it trails a steady walker by up to a step.
            #expect(e.x <= x + 0.25 + 0.5 && e.x > x + 0.25 - 1.25, "step \(step): \(e.x) σ \((e.varianceX + e.varianceY).squareRoot())")
            spreads.append((e.varianceX + e.varianceY).squareRoot())
        }
        // Never more sure than a cell is wide, and sure to within metres.
        #expect(spreads.allSatisfy { $0 >= 0.5 / 6.squareRoot() - 1e-9 && $0 < 2 }, "\(spreads)")
    }
}
