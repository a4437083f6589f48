import Foundation

/// The Kalman accuracy's level over the last few seconds (its geometric mean,
/// fading with time constant `fadeS`): how noisy the walk's fixes have been
/// lately, which the stated accuracy's Kalman part grows with (issue 59).
///
/// Why: across random walks a run's error grows 3–5 times as fast (log-log)
/// as its covariance, so one fix's covariance undersays a noisy stretch and
/// oversays a quiet one; the recent level carries what the stretch is like.
package struct RecentKalman: Sendable, Equatable {
    /// Seconds over which an old level fades to 1/e.
    package static let fadeS = 10.0

    private var logLevel: Double?
    private var atMs = 0

    package init() {}

    /// The level (m) after noting `accuracyM` at `ms`; the first note is the level.
    package mutating func note(_ accuracyM: Double, atMs ms: Int) -> Double {
        let value = log(max(accuracyM, 1e-3))
        let level = logLevel.map { old in
            let keep = exp(-Double(max(0, ms - atMs)) / 1000 / Self.fadeS)
            return keep * old + (1 - keep) * value
        } ?? value
        logLevel = level
        atMs = ms
        return exp(level)
    }
}
