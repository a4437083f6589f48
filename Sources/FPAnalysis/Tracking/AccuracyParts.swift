/// What a position's stated accuracy on a sparse survey is made of (m), and
/// how they combine (issue 59). `track --json` prints them as `accuracy_parts`.
///
/// Why these: the Kalman filter's covariance never looks at the fixes, so it
/// stays settled while WKNN drifts or snaps to a lookalike place. Three signs
/// tell that the track may be wrong: the fixes just jumped (`SnapMemory`); the
/// belief over the survey's cells (`RadiomapFilter`), weighed by the same
/// windows, has its most likely place away from the track (a drift); or the
/// belief holds the track's place and another one too (a lookalike).
package struct AccuracyParts: Sendable, Equatable {
    /// How the belief over the survey's cells lies around the track.
    package struct Belief: Sendable, Equatable {
        /// From the track to the belief's most likely cell.
        package var modeM: Double
        /// The distance from the track within which the belief holds 63 %.
        package var radiusM: Double
        /// The share of the belief within `nearM` of the track.
        package var shareNear: Double
    }

    /// √(Pxx + Pyy) of the Kalman filter.
    package var kalmanM: Double
    package var belief: Belief
    /// The fixes' last jump from the filter's prediction, faded.
    package var snapM: Double
    /// The Kalman accuracy's level over the last seconds (`RecentKalman`).
    package var recentKalmanM: Double

    package init(kalmanM: Double, belief: Belief, snapM: Double, recentKalmanM: Double = Self.recentReferenceM) {
        self.kalmanM = kalmanM
        self.belief = belief
        self.snapM = snapM
        self.recentKalmanM = recentKalmanM
    }

    /// The Kalman covariance's share while it and its recent level (`RecentKalman`) are at
    /// `kalmanReferenceM`. Away from it the part grows with √(kalman × recent level) too, not
    /// in proportion: a walk whose fixes scatter more errs by more than the covariance's growth
    /// says (over 400 random seeds, log-log, a run's mean error rose 3–5× as fast as its mean
    /// covariance), so a flat share left quiet runs too wide and noisy ones too narrow.
    package static let kalmanShare = 0.75, kalmanReferenceM = 2.72
    /// The share of the distance to the belief's most likely cell that the accuracy covers…
    package static let modeShare = 0.5
    /// …while that cell is nearer than this; further, a belief that has lost the walker
    /// (it cannot jump back across the floor) is as likely as a track that has, and only
    /// `lostShare` of the distance is covered.
    package static let lostM = 12.0, lostShare = 0.15
    /// The share of the belief's 63 % radius the accuracy covers while the belief also
    /// holds at least `nearShare` within `nearM` of the track (two places, one of them the track's).
    package static let radiusShare = 0.4
    package static let nearM = 3.0, nearShare = 0.2
    /// The J walks' typical recent level (m): what `recentKalmanM` is when not known.
    package static let recentReferenceM = 2.46

    /// The Kalman part (m): `kalmanShare` of √(Pxx + Pyy) at the reference, growing as √(kalman × recent level) beside it.
    package var kalmanPart: Double { Self.kalmanShare * kalmanM * (kalmanM * recentKalmanM).squareRoot() / Self.kalmanReferenceM }

    /// The stated accuracy (m). The shares were set on random seeds of the J walks (180, then 1,700 for
    /// the Kalman part's growth and the far share); on 400 drawn afterwards 55–80 % of a run's fixes lay
    /// within it in 94.5–98 % of runs per map and method. `make bench-tracking` checks them afresh each run.
    package var stated: Double {
        let drift = (belief.modeM < Self.lostM ? Self.modeShare : Self.lostShare) * belief.modeM
        let lookalike = belief.shareNear >= Self.nearShare ? Self.radiusShare * belief.radiusM : 0
        return max(kalmanPart, SnapMemory.share * snapM, drift, lookalike)
    }
}
