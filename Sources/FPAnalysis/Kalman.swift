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
