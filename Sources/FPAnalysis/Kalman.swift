/// A one-dimensional Kalman filter with a constant-position model, run per
/// axis over a track: x̂ₖ⁻ = x̂ₖ₋₁ + u, Eₖ⁻ = Eₖ₋₁ + σξ² (process noise),
/// K = Eₖ⁻ / (Eₖ⁻ + ση²) (measurement noise), x̂ₖ = x̂ₖ⁻ + K (zₖ − x̂ₖ⁻),
/// Eₖ = (1 − K) Eₖ⁻. Started at x̂₀ = z₀ with E₀ = ση².
package struct Kalman1D: Sendable, Equatable {
    package var processVariance: Double
    package var measurementVariance: Double
    package var control: Double

    package init(processVariance: Double, measurementVariance: Double, control: Double = 0) {
        self.processVariance = processVariance
        self.measurementVariance = measurementVariance
        self.control = control
    }

    /// The filtered values and the gains used (the first step has none: nil).
    package func smooth(_ z: [Double]) -> (values: [Double], gains: [Double?]) {
        guard let first = z.first else { return ([], []) }
        var x = first, e = measurementVariance
        var values = [x]
        var gains: [Double?] = [nil]
        for zk in z.dropFirst() {
            let xPrior = x + control
            let ePrior = e + processVariance
            let k = ePrior / (ePrior + measurementVariance)
            x = xPrior + k * (zk - xPrior)
            e = (1 - k) * ePrior
            values.append(x)
            gains.append(k)
        }
        return (values, gains)
    }

    /// The gain the filter settles at: the fixed point of E = (1 − K)(E + σξ²).
    package var steadyStateGain: Double {
        // P = E⁻ solves P² − σξ² P − σξ² ση² = 0.
        let q = processVariance, r = measurementVariance
        let p = (q + (q * q + 4 * q * r).squareRoot()) / 2
        return p / (p + r)
    }
}

/// A track smoothed per axis with the same filter.
package struct TrackSmoother: Sendable {
    package var filter: Kalman1D
    package init(filter: Kalman1D) { self.filter = filter }

    package func smooth(_ points: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
        let xs = filter.smooth(points.map(\.x)).values
        let ys = filter.smooth(points.map(\.y)).values
        return zip(xs, ys).map { ($0, $1) }
    }
}

/// A 2-D constant-velocity Kalman filter for live tracking: state (x, y, vx, vy)
/// in metres and m/s, covariance P (4 × 4), position measurements z = (x, y).
///
/// Predict over dt seconds: x ← x + vx·dt, y ← y + vy·dt, P ← F P Fᵀ + Q, where
/// Q is the white-noise-acceleration model (per axis σa²·[[dt⁴/4, dt³/2],
/// [dt³/2, dt²]]) plus an optional position variance per step (the thesis'
/// σξ²). With a motion control input u = (dx, dy) (step length × heading over
/// dt), the steps replace the velocity: x ← x + dx, v ← u / dt, and the
/// covariance takes the steps' own variance instead of the velocity's.
///
/// With σa = 0, no initial velocity variance and a position variance per step,
/// each axis is exactly `Kalman1D` (the thesis' constant-position filter).
package struct Kalman2D: Sendable, Equatable {
    package struct Noise: Sendable, Equatable {
        /// Standard deviation of the walker's acceleration, m/s².
        package var accelerationSD: Double
        /// Extra position variance added at every prediction, m² (0 for the pure CV model).
        package var positionVariancePerStep: Double
        package init(accelerationSD: Double, positionVariancePerStep: Double = 0) {
            self.accelerationSD = accelerationSD
            self.positionVariancePerStep = positionVariancePerStep
        }

        /// Process noise tied to walking speed: a walker changes speed by about
        /// its whole walking speed within ~2 s (starting, stopping, turning a corner).
        package static func walking(speed: Double) -> Noise { Noise(accelerationSD: speed / 2) }
    }

    /// x, y, vx, vy
    package private(set) var state: [Double]
    /// Row-major 4 × 4.
    package private(set) var covariance: [Double]
    package var noise: Noise

    /// Started at a first measurement: position z with variance r per axis,
    /// velocity 0 with variance `velocityVariance` per axis (e.g. walking speed²).
    package init(x: Double, y: Double, measurementVariance r: Double, velocityVariance: Double, noise: Noise) {
        state = [x, y, 0, 0]
        covariance = [r, 0, 0, 0, 0, r, 0, 0, 0, 0, velocityVariance, 0, 0, 0, 0, velocityVariance]
        self.noise = noise
    }

    package var x: Double { state[0] }
    package var y: Double { state[1] }
    package var velocity: (x: Double, y: Double) { (state[2], state[3]) }

    /// The RMS radial position error the covariance implies: √(Pxx + Pyy), metres.
    package var accuracy: Double { max(0, covariance[0] + covariance[5]).squareRoot() }

    /// A step/heading control input over one prediction: displacement in metres and its variance per axis.
    package struct Control: Sendable, Equatable {
        package var dx: Double
        package var dy: Double
        package var variance: Double
        package init(dx: Double, dy: Double, variance: Double) {
            self.dx = dx
            self.dy = dy
            self.variance = variance
        }
    }

    package mutating func predict(dt: Double, control: Control? = nil) {
        guard dt > 0 else { return }
        var f = [Double](repeating: 0, count: 16)
        var q = [Double](repeating: 0, count: 16)
        if let control {
            // Velocity is replaced by the steps: F keeps position only.
            f[0] = 1; f[5] = 1
            state = [state[0] + control.dx, state[1] + control.dy, control.dx / dt, control.dy / dt]
            q[0] = control.variance; q[5] = control.variance
            q[10] = control.variance / (dt * dt); q[15] = control.variance / (dt * dt)
            q[2] = control.variance / dt; q[8] = q[2]
            q[7] = control.variance / dt; q[13] = q[7]
        } else {
            f = [1, 0, dt, 0, 0, 1, 0, dt, 0, 0, 1, 0, 0, 0, 0, 1]
            state = [state[0] + state[2] * dt, state[1] + state[3] * dt, state[2], state[3]]
            let a2 = noise.accelerationSD * noise.accelerationSD
            let pp = a2 * dt * dt * dt * dt / 4, pv = a2 * dt * dt * dt / 2, vv = a2 * dt * dt
            q[0] = pp; q[2] = pv; q[8] = pv; q[10] = vv
            q[5] = pp; q[7] = pv; q[13] = pv; q[15] = vv
        }
        q[0] += noise.positionVariancePerStep
        q[5] += noise.positionVariancePerStep
        covariance = Self.add(Self.multiply(Self.multiply(f, covariance), Self.transpose(f)), q)
    }

    /// Folds in a position measurement with variance r per axis; returns the gain on x from x.
    @discardableResult
    package mutating func update(x zx: Double, y zy: Double, variance r: Double) -> Double {
        let p = covariance
        // S = H P Hᵀ + R (2 × 2), H = [I 0].
        let s00 = p[0] + r, s01 = p[1], s10 = p[4], s11 = p[5] + r
        let det = s00 * s11 - s01 * s10
        guard abs(det) > 1e-300 else { return 0 }
        let i00 = s11 / det, i01 = -s01 / det, i10 = -s10 / det, i11 = s00 / det
        // K = P Hᵀ S⁻¹ (4 × 2): P's first two columns times S⁻¹.
        var k = [Double](repeating: 0, count: 8)
        for row in 0..<4 {
            let a = p[row * 4], b = p[row * 4 + 1]
            k[row * 2] = a * i00 + b * i10
            k[row * 2 + 1] = a * i01 + b * i11
        }
        let ix = zx - state[0], iy = zy - state[1]
        for row in 0..<4 { state[row] += k[row * 2] * ix + k[row * 2 + 1] * iy }
        // P ← (I − K H) P: subtract K times P's first two rows.
        var next = p
        for row in 0..<4 {
            for col in 0..<4 { next[row * 4 + col] -= k[row * 2] * p[col] + k[row * 2 + 1] * p[4 + col] }
        }
        // Keep it symmetric against rounding.
        for row in 0..<4 {
            for col in (row + 1)..<4 {
                let m = (next[row * 4 + col] + next[col * 4 + row]) / 2
                next[row * 4 + col] = m
                next[col * 4 + row] = m
            }
        }
        covariance = next
        return k[0]
    }

    /// Squared Mahalanobis distance of a measurement from the prediction (for gating outliers).
    package func innovationDistance(x zx: Double, y zy: Double, variance r: Double) -> Double {
        let s00 = covariance[0] + r, s01 = covariance[1], s11 = covariance[5] + r
        let det = s00 * s11 - s01 * s01
        guard det > 0 else { return .infinity }
        let ix = zx - state[0], iy = zy - state[1]
        return (s11 * ix * ix - 2 * s01 * ix * iy + s00 * iy * iy) / det
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0..<4 {
                var s = 0.0
                for m in 0..<4 { s += a[i * 4 + m] * b[m * 4 + j] }
                out[i * 4 + j] = s
            }
        }
        return out
    }

    static func transpose(_ a: [Double]) -> [Double] {
        var out = a
        for i in 0..<4 { for j in 0..<4 { out[i * 4 + j] = a[j * 4 + i] } }
        return out
    }

    static func add(_ a: [Double], _ b: [Double]) -> [Double] { zip(a, b).map { $0 + $1 } }
}
