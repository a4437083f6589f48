import FPCore
import Foundation

/// What makes a simulated building as unkind as a real one (issue 30), on
/// top of the log-distance law and its per-sample noise:
///
/// - **Shadowing that stays put** (Gudmundson): each transmitter's level is
///   off by a smooth random field over the floor, σ `shadowingSD`,
///   decorrelating over `correlationM` — furniture and walls the law does not
///   know. It belongs to the building, not the run: it is drawn from the
///   map and the transmitter, so a survey and a later walk meet the same field.
/// - **Another device**: every run's receiver reads `deviceOffsetSD`-spread
///   dB off (antenna, case, body), the same for all its transmitters.
/// - **Beacons that age**: per run, each BLE transmitter's power has drifted
///   by N(0, `powerDriftSD`) since the survey, and `deadShare` of them are
///   silent (a flat battery) — not the same ones each run.
/// - **Walls**: where the map has an outline, each of its edges a signal
///   crosses on the straight line to the receiver takes `wallLossDb` off
///   (an outer wall of brick or concrete: 8–15 dB at 2.4 GHz).
///
/// The defaults make static WKNN (k = 3) between two simulated walks of the
/// J floors err by a median of 1.3–2.2 m and a p75 of 2.8–3.8 m, about the
/// public datasets' (UJI library knn9 p75 3.1–3.5 m; the ble-flat-robot flat,
/// a smaller place, 1.1–1.2 m median); the ideal law alone gives 0.8 m.
package struct Realism: Sendable, Equatable {
    package var shadowingSD: Double
    package var correlationM: Double
    package var deviceOffsetSD: Double
    package var powerDriftSD: Double
    package var deadShare: Double
    /// The run (survey, walk) whose device and beacons these are: the
    /// command's seed, so one survey is one device however many points it has.
    package var runSeed: UInt64 = 0
    /// The floor's walls, map units: the outline's edges.
    package var walls: [Wall] = []
    package var wallLossDb: Double = 10

    package init(shadowingSD: Double = 4, correlationM: Double = 3, deviceOffsetSD: Double = 3, powerDriftSD: Double = 2,
                 deadShare: Double = 0.05, runSeed: UInt64 = 0) {
        self.runSeed = runSeed
        self.shadowingSD = shadowingSD
        self.correlationM = correlationM
        self.deviceOffsetSD = deviceOffsetSD
        self.powerDriftSD = powerDriftSD
        self.deadShare = deadShare
    }

    /// A straight wall between two map points.
    package struct Wall: Sendable, Equatable {
        package let a: MapPoint
        package let b: MapPoint

        /// Every edge of a closed outline (the last corner joins the first).
        package static func edges(of outline: [MapPoint]) -> [Wall] {
            guard outline.count >= 2 else { return [] }
            return outline.indices.map { Wall(a: outline[$0], b: outline[($0 + 1) % outline.count]) }
        }

        /// True when the segment from `p` to `q` crosses this wall (touching an end counts once per wall).
        package func crosses(_ p: MapPoint, _ q: MapPoint) -> Bool {
            func side(_ o: MapPoint, _ u: MapPoint, _ v: MapPoint) -> Double { (u.x - o.x) * (v.y - o.y) - (u.y - o.y) * (v.x - o.x) }
            let d1 = side(a, b, p), d2 = side(a, b, q), d3 = side(p, q, a), d4 = side(p, q, b)
            return (d1 > 0) != (d2 > 0) && (d3 > 0) != (d4 > 0) && d1 != 0 && d2 != 0
        }
    }

    /// dB the walls take off the straight path from a transmitter to a receiver (map units).
    package func wallLoss(from transmitter: MapPoint, to receiver: MapPoint) -> Double {
        guard !walls.isEmpty else { return 0 }
        return Double(walls.filter { $0.crosses(transmitter, receiver) }.count) * wallLossDb
    }

    /// The building's shadowing field of one transmitter: a sum of random
    /// plane waves (random Fourier features) is a stationary Gaussian field
    /// whose correlation is exp(−d²/2ℓ²) for wave numbers drawn N(0, 1/ℓ²);
    /// ℓ = correlationM / 2 makes it fall to ~0.3 at `correlationM`.
    package struct Field: Sendable {
        let kx: [Double], ky: [Double], phase: [Double]
        let amplitude: Double

        static let waves = 24

        package init(map: String, transmitter: String, realism: Realism) {
            var random = SeededRandom(seed: 0x5EED_F1E1D).fork("\(map)/\(transmitter)")
            let l = realism.correlationM / 2
            var kx: [Double] = [], ky: [Double] = [], phase: [Double] = []
            for _ in 0..<Self.waves {
                kx.append(random.nextGaussian() / l)
                ky.append(random.nextGaussian() / l)
                phase.append(Double.random(in: 0..<(2 * .pi), using: &random))
            }
            self.kx = kx
            self.ky = ky
            self.phase = phase
            amplitude = realism.shadowingSD * (2 / Double(Self.waves)).squareRoot()
        }

        /// dB at a point in metres.
        package func value(xM: Double, yM: Double) -> Double {
            var sum = 0.0
            for i in kx.indices { sum += cos(kx[i] * xM + ky[i] * yM + phase[i]) }
            return amplitude * sum
        }
    }

    /// One run's receiver and transmitters: the device offset, each
    /// transmitter's drift and whether it is dead, drawn from the run's seed.
    package struct Run: Sendable {
        package let deviceOffset: Double
        private let realism: Realism
        private let seed: SeededRandom

        package init(_ realism: Realism) {
            self.realism = realism
            seed = SeededRandom(seed: realism.runSeed).fork("realism")
            var device = seed.fork("device")
            deviceOffset = realism.deviceOffsetSD * device.nextGaussian()
        }

        /// dB a BLE transmitter's power has drifted by, or nil when it is dead this run.
        package func beacon(_ address: String) -> Double? {
            var r = seed.fork("beacon/\(address)")
            if Double.random(in: 0..<1, using: &r) < realism.deadShare { return nil }
            return realism.powerDriftSD * r.nextGaussian()
        }
    }
}
