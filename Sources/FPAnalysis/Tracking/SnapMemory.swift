import Foundation

/// How far the last fixes jumped from where the Kalman filter expected them,
/// remembered for a few seconds: what the stated accuracy must cover after
/// WKNN snaps to a lookalike place (issue 59).
///
/// Why: on a walk's survey a place whose signals resemble another 8–15 m away
/// makes WKNN jump there for 10–15 s, and the filter follows within a few
/// windows, after which its covariance looks settled again. The jump itself is
/// the one sign that one of the two places is wrong, so its length is kept,
/// fading with time constant `fadeS`, as a floor under the stated accuracy.
package struct SnapMemory: Sendable, Equatable {
    /// A fix further than this (squared Mahalanobis distance from the filter's
    /// prediction, 9 = 3σ) is a jump, not noise the filter weighs.
    package static let jumpDistance2 = 9.0
    /// Seconds over which a jump's length fades to 1/e.
    package static let fadeS = 8.0
    /// The share of the remembered jump the stated accuracy covers.
    package static let share = 1.1

    private var lengthM = 0.0
    private var atMs: Int?

    package init() {}

    /// The remembered jump at `ms` (m), faded.
    package func reach(atMs ms: Int) -> Double {
        guard let atMs else { return 0 }
        return lengthM * exp(-Double(max(0, ms - atMs)) / 1000 / Self.fadeS)
    }

    /// Notes one fix against the filter's prediction (before it is folded in).
    package mutating func note(_ filter: Kalman2D, fixXM x: Double, yM y: Double, variance: Double, atMs ms: Int) {
        guard filter.innovationDistance(x: x, y: y, variance: variance) > Self.jumpDistance2 else { return }
        let length = ((x - filter.x) * (x - filter.x) + (y - filter.y) * (y - filter.y)).squareRoot()
        let now = reach(atMs: ms)
        if length > now {
            lengthM = length
            atMs = ms
        }
    }
}
