/// How good a track is against the true path: per-fix errors and their summary.
package struct TrackEvaluation: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var timeMs: Int
        package var errorM: Double
        package var floorHit: Bool
        /// The map the position was reported on, and the one the walker was on.
        package var map: String = ""
        package var truthMap: String = ""
        /// The accuracy the position was given with (m).
        package var accuracyM: Double = .infinity
        /// The error is within the stated accuracy.
        package var withinAccuracy: Bool { errorM <= accuracyM }
    }

    package private(set) var entries: [Entry] = []
    /// When the first position came, ms from the start.
    package private(set) var firstFixMs: Int?

    package init() {}

    /// Error in metres (map distance × the point's scale); the floor is hit when the maps agree.
    @discardableResult
    package mutating func add(_ p: TrackPoint, truthMap: String, truthX: Double, truthY: Double) -> Entry {
        let dx = p.x - truthX, dy = p.y - truthY
        let e = Entry(timeMs: p.timeMs, errorM: (dx * dx + dy * dy).squareRoot() * p.metersPerUnit,
                      floorHit: p.map == truthMap, map: p.map, truthMap: truthMap, accuracyM: p.accuracyM)
        entries.append(e)
        if firstFixMs == nil { firstFixMs = p.timeMs }
        return e
    }

    package struct Summary: Sendable, Equatable {
        package var fixes: Int
        package var medianM: Double
        /// Nearest rank, as eval's percentiles.
        package var p90M: Double
        package var maxM: Double
        package var floorHitRate: Double
        package var firstFixMs: Int?
        /// Share of positions whose error is within their stated accuracy: an
        /// honest accuracy (√(σx² + σy²) of a 2-D Gaussian) holds about 63 %.
        package var withinAccuracyRate: Double
        /// Per change of the true map (floor), how long after it the reported
        /// map became the new one and held it `settleMs` (negative: before it); nil: never.
        package var floorChangeDelaysMs: [Int?] = []
    }

    /// How long the reported map must stay the new one for a change to count as reported.
    package static let settleMs = 5_000

    /// For each change of the true map: the first position that starts a run
    /// of the new map lasting `settleMs` (or up to the next change or the end),
    /// its time against the change's, searched from the previous change on, so
    /// a detector that switched early counts early. A one-window flip back
    /// afterwards does not move it, nor does a one-window flip before it count.
    package var floorChangeDelaysMs: [Int?] {
        let changes = entries.indices.dropFirst().filter { entries[$0].truthMap != entries[$0 - 1].truthMap }
        return changes.enumerated().map { n, change in
            let searchFrom = n == 0 ? 0 : changes[n - 1]
            let until = n + 1 < changes.count ? changes[n + 1] : entries.count
            let map = entries[change].truthMap
            var i = searchFrom
            while i < until {
                guard entries[i].map == map else { i += 1; continue }
                var end = i
                while end < until && entries[end].map == map { end += 1 }
                if end == until || entries[end - 1].timeMs - entries[i].timeMs >= Self.settleMs {
                    return entries[i].timeMs - entries[change].timeMs
                }
                i = end
            }
            return nil
        }
    }

    package var summary: Summary? {
        guard !entries.isEmpty else { return nil }
        let sorted = entries.map(\.errorM).sorted()
        return Summary(fixes: entries.count, medianM: Reduction.median(sorted) ?? 0,
                       p90M: ErrorSummary.nearestRank(sorted, 0.90) ?? 0, maxM: sorted.last ?? 0,
                       floorHitRate: Double(entries.filter(\.floorHit).count) / Double(entries.count),
                       firstFixMs: firstFixMs,
                       withinAccuracyRate: Double(entries.filter(\.withinAccuracy).count) / Double(entries.count),
                       floorChangeDelaysMs: floorChangeDelaysMs)
    }
}
