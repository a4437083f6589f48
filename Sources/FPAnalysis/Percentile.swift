/// Percentiles as Matlab's and Octave's `prctile` compute them (Octave's
/// `quantile` method 5, Matlab's only one): the sorted values sit at
/// cumulative probabilities (i − 0.5)/n, linear between them, the first and
/// last value beyond. What the datasets' authors report as "the 75th
/// percentile"; fprint's own figures are nearest rank (`ErrorSummary`).
package enum Percentile {
    /// `p` in 0…100 of ascending `sorted`; nil for none. Octave's arithmetic:
    /// position p·n/100 + 0.5, i = ⌊position⌋ clamped to 1…n−1, r = position − i
    /// clamped to 0…1, value (1 − r)·x[i] + r·x[i+1] (1-based).
    package static func prctile(_ sorted: [Double], _ p: Double) -> Double? {
        let n = sorted.count
        guard n > 0 else { return nil }
        guard n > 1 else { return sorted[0] }
        let position = p / 100 * Double(n) + 0.5
        let i = max(min(Int(position.rounded(.down)), n - 1), 1)
        let r = max(min(position - Double(i), 1), 0)
        return (1 - r) * sorted[i - 1] + r * sorted[i]
    }
}
