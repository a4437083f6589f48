import FPCore
import Foundation
import Testing

@testable import FPProviders

/// The realistic simulation (issue 30): shadowing that belongs to the
/// building, not the run; a device offset per run; beacons that drift or die.
@Suite struct RealismTests {
    /// One beacon 10 m away and no per-sample noise, so what is left is the law and the realism.
    static func environment(_ realism: Realism?) -> RadioEnvironment {
        var env = RadioEnvironment(map: "T1", source: "T1.json", scale: MapScale(meters: 1, units: 1),
                                   propagation: .init(pathLossExponent: 2, shadowingSigmaDb: 0, sensitivityDbm: -200),
                                   ble: [.init(address: "C5:D5:21:51:D7:90", position: MapPoint(x: 0, y: 0), measuredPower: -60)])
        env.propagation.realism = realism
        return env
    }

    /// The mean RSSI the beacon is heard with by a receiver standing at `p` for a second.
    static func heard(_ realism: Realism?, at p: MapPoint, seed: UInt64 = 1) -> Double? {
        var sim = BLESimulation(environment: environment(realism), seed: seed)
        var out: [Sample] = []
        sim.advance(toMs: 1000, position: { _ in p }, into: &out)
        let levels = out.compactMap { if case .ble(let s) = $0 { s.rssi.map(Double.init) } else { nil } }
        return levels.isEmpty ? nil : levels.reduce(0, +) / Double(levels.count)
    }

    @Test func theShadowingBelongsToTheBuildingAndVariesOverMetres() throws {
        let calm = Realism(shadowingSD: 6, correlationM: 3, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0)
        let ideal = try #require(Self.heard(nil, at: MapPoint(x: 10, y: 0)))
        #expect(ideal == -80)  // −60 − 20·log10(10)
        // Another run (another seed) meets the same field at the same place.
        let a = try #require(Self.heard(.init(shadowingSD: 6, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0, runSeed: 1),
                                        at: MapPoint(x: 10, y: 0)))
        let b = try #require(Self.heard(.init(shadowingSD: 6, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0, runSeed: 2),
                                        at: MapPoint(x: 10, y: 0), seed: 9))
        #expect(a == b)
        // Over a floor it spreads by about its σ, smooth within centimetres, independent metres apart.
        let field = Realism.Field(map: "T1", transmitter: "C5:D5:21:51:D7:90", realism: calm)
        var values: [Double] = [], steps: [Double] = []
        for i in 0..<400 {
            let x = Double(i % 20) * 5, y = Double(i / 20) * 5
            values.append(field.value(xM: x, yM: y))
            steps.append(abs(field.value(xM: x + 0.05, yM: y) - field.value(xM: x, yM: y)))
        }
        let mean = values.reduce(0, +) / 400
        let sd = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 400).squareRoot()
        #expect(sd > 4 && sd < 8, "σ \(sd)")
        #expect(steps.max()! < 1, "5 cm apart: \(steps.max()!) dB")
        // Another transmitter has another field.
        let other = Realism.Field(map: "T1", transmitter: "C5:D5:21:51:D7:91", realism: calm)
        #expect(other.value(xM: 10, yM: 0) != field.value(xM: 10, yM: 0))
    }

    @Test func eachRunIsAnotherDeviceAndItsBeaconsHaveAged() throws {
        let device = Realism(shadowingSD: 0, deviceOffsetSD: 3, powerDriftSD: 0, deadShare: 0)
        var offsets = Set<Double>()
        for run in 1...10 {
            var r = device
            r.runSeed = UInt64(run)
            offsets.insert(try #require(Self.heard(r, at: MapPoint(x: 10, y: 0))))
        }
        #expect(offsets.count >= 4, "\(offsets)")  // whole dBm: some runs share a level
        // All dead: nothing heard; none dead and no drift: the ideal level.
        #expect(Self.heard(.init(shadowingSD: 0, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 1), at: MapPoint(x: 10, y: 0)) == nil)
        #expect(Self.heard(.init(shadowingSD: 0, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0), at: MapPoint(x: 10, y: 0)) == -80)
        // About one in twenty beacons is dead in a run by default.
        let run = Realism.Run(Realism(runSeed: 3))
        let dead = (0..<1000).filter { run.beacon(String(format: "AA:00:00:00:%02X:%02X", $0 / 256, $0 % 256)) == nil }.count
        #expect(dead > 30 && dead < 70, "\(dead) of 1000")
    }

    /// Walls from the map's outline: each edge crossed on the straight line costs `wallLossDb`.
    @Test func wallsOfTheOutlineTakeTheirLossPerCrossing() throws {
        // An L-shaped floor: the beacon at the origin, a receiver round the corner behind the inner walls.
        let outline = [MapPoint(x: -5, y: -5), MapPoint(x: 20, y: -5), MapPoint(x: 20, y: 5), MapPoint(x: 5, y: 5),
                       MapPoint(x: 5, y: 20), MapPoint(x: -5, y: 20)]
        var walled = Realism(shadowingSD: 0, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0)
        walled.walls = Realism.Wall.edges(of: outline)
        #expect(walled.walls.count == 6)
        let open = Realism(shadowingSD: 0, deviceOffsetSD: 0, powerDriftSD: 0, deadShare: 0)
        // In sight (along the L's arm): no wall, the law alone.
        #expect(try #require(Self.heard(walled, at: MapPoint(x: 10, y: 0))) == -80)
        // From one arm of the L to the other across the inner corner: out through one wall, in through another.
        let across = MapPoint(x: 15, y: 4), far = MapPoint(x: 4, y: 15)
        #expect(walled.wallLoss(from: across, to: far) == 20)
        var env = Self.environment(walled)
        env.ble[0].position = across
        var sim = BLESimulation(environment: env, seed: 3)
        var out: [Sample] = []
        sim.advance(toMs: 1000, position: { _ in far }, into: &out)
        let levels = out.compactMap { if case .ble(let s) = $0 { s.rssi.map(Double.init) } else { nil } }
        let law = -60 - 20 * log10(across.distance(to: far))
        #expect(!levels.isEmpty && levels.allSatisfy { abs($0 - (law - 20)) <= 0.5 }, "\(levels)")
        // No outline, no walls.
        #expect(open.wallLoss(from: across, to: far) == 0)
    }
}
