import Foundation

/// Live positioning on a radiomap as a Bayes filter over its cells (a
/// histogram filter, the forward pass of a hidden Markov model): a belief of
/// where the walker is, moved by a walking model and weighed by each window's
/// match against every cell.
///
/// Why not WKNN through a Kalman filter: WKNN's errors on real data are
/// biases that last tens of seconds (a place whose signals resemble another),
/// not white noise a filter averages away, and one WKNN guess per window
/// throws away the other places that matched nearly as well. Here every cell
/// keeps its weight, and a walker cannot jump across the flat between two
/// windows, so a lookalike far away loses. On the flat-robot track this
/// takes the median from WKNN's ~1.1 m to ~0.85 m (docs/positioning.md).
///
/// The accuracy is the belief's own spread: √(σx² + σy²) of the weights,
/// plus each cell's own extent and how far the walker may have gone since
/// the window's middle.
package struct RadiomapFilter: Sendable {
    package let cells: RadiomapCells
    /// Walking speed, m/s: the belief spreads by speed × time per axis.
    package let speed: Double
    /// σ of one transmitter's mismatch between a window and a cell, dB.
    package let matchSD: Double
    /// Each step, this share of the belief is spread over every cell: the
    /// walker may be somewhere the model did not expect (a restart, a lift).
    package static let anywhere = 1e-3
    /// A transmitter heard on one side only counts as this many σ apart, and
    /// no reading counts more: one dead or odd beacon costs every cell alike
    /// instead of vetoing the right one.
    package static let mismatchCapSD = 3.0
    /// How many independent transmitters a window is worth at most.
    package static let evidence = 6

    package private(set) var belief: [Double] = []
    private var lastMs: Int?
    private var spread: (dtMs: Int, rows: [[(Int, Double)]])?

    /// `matchSD` nil: the radiomap's within-cell spread, what a reading varies
    /// by in one place.
    package init(cells: RadiomapCells, speed: Double, matchSD: Double? = nil) {
        self.cells = cells
        self.speed = speed
        self.matchSD = matchSD ?? cells.withinCellSD
    }

    package var started: Bool { !belief.isEmpty }

    /// Moves the belief to `ms` (walking model), then weighs it by the window's
    /// per-transmitter medians (`reduced`, eval's ids) and, when given, a
    /// beacon fix (map units, variance m² per axis). False when the window
    /// shares no transmitter with the radiomap and nothing else came.
    @discardableResult
    package mutating func update(atMs ms: Int, reduced: [String: Double], bleOnly: Bool, wifiOnly: Bool,
                                 beacons: Fix? = nil) -> Bool {
        let n = cells.count
        guard n > 0 else { return false }
        var log = [Double](repeating: 0, count: n)
        let matched = addMatch(reduced, bleOnly: bleOnly, wifiOnly: wifiOnly, into: &log)
        if let b = beacons {
            let m = cells.metersPerUnit
            for c in 0..<n {
                let dx = (cells.x[c] - b.x) * m, dy = (cells.y[c] - b.y) * m
                log[c] -= (dx * dx + dy * dy) / (2 * max(b.variance, 1e-6))
            }
        }
        guard matched || beacons != nil else {
            if started { predict(toMs: ms) }
            return false
        }
        if started {
            predict(toMs: ms)
        } else {
            belief = [Double](repeating: 1 / Double(n), count: n)
            lastMs = ms
        }
        let top = log.max() ?? 0
        var total = 0.0
        for c in 0..<n {
            belief[c] *= exp(log[c] - top)
            total += belief[c]
        }
        if total > 0 && total.isFinite {
            for c in 0..<n { belief[c] /= total }
        } else {
            // Every cell ruled out by the walking model: trust the window alone.
            total = 0
            for c in 0..<n { belief[c] = exp(log[c] - top); total += belief[c] }
            for c in 0..<n { belief[c] /= total }
        }
        return true
    }

    /// Log-likelihood of the window at every cell; false when no column was compared.
    /// A cell is judged by its mean mismatch over the columns it can judge
    /// (those of the radios its survey recorded), times `evidence`: a cell
    /// whose survey lacks a Wi-Fi scan is then neither vetoed nor favoured, and
    /// 80 transmitters do not count as 80 independent witnesses (their errors
    /// share the body, the device, the place).
    private func addMatch(_ reduced: [String: Double], bleOnly: Bool, wifiOnly: Bool, into log: inout [Double]) -> Bool {
        let cols = cells.columns.count
        let cap = Self.mismatchCapSD * Self.mismatchCapSD
        let inverse = 1 / (matchSD * matchSD)
        var sums = [Double](repeating: 0, count: cells.count), counts = [Int](repeating: 0, count: cells.count)
        for (col, id) in cells.columns.enumerated() {
            // A window without a Wi-Fi scan is compared on BLE alone, and the other way round.
            let ble = cells.isBLE[col]
            if (bleOnly && !ble) || (wifiOnly && ble) { continue }
            let live = reduced[id]
            for c in 0..<cells.count where cells.surveyed[c * 2 + (ble ? 0 : 1)] {
                let stored = cells.values[c * cols + col]
                switch (live, stored) {
                case (nil, nil): continue
                case (let l?, let s?): sums[c] += min(cap, (l - s) * (l - s) * inverse)
                default: sums[c] += cap
                }
                counts[c] += 1
            }
        }
        let compared = counts.max() ?? 0
        guard compared > 0 else { return false }
        let weight = Double(min(compared, Self.evidence))
        for c in 0..<cells.count {
            // A cell that can judge nothing of this window counts as an average mismatch.
            let mean = counts[c] > 0 ? sums[c] / Double(counts[c]) : 1
            log[c] -= weight * mean / 2
        }
        return true
    }

    /// Spreads the belief by the distance walkable since the last update.
    private mutating func predict(toMs ms: Int) {
        let dt = ms - (lastMs ?? ms)
        lastMs = ms
        guard dt > 0 else { return }
        // Walking at `speed` in a direction nobody knows moves the walker by
        // speed × dt, which a Gaussian matches with σ = speed × dt / √2 per axis.
        if spread?.dtMs != dt { spread = (dt, Self.kernel(cells, sigmaM: speed * Double(dt) / 1000 / 2.squareRoot())) }
        let n = cells.count
        var next = [Double](repeating: Self.anywhere / Double(n), count: n)
        for (from, row) in spread!.rows.enumerated() where belief[from] > 0 {
            let mass = belief[from] * (1 - Self.anywhere)
            for (to, w) in row { next[to] += mass * w }
        }
        belief = next
    }

    /// Per cell, the cells within 4σ and the share of its belief each gets (Gaussian, normalised).
    static func kernel(_ cells: RadiomapCells, sigmaM: Double) -> [[(Int, Double)]] {
        let s = max(sigmaM, cells.cellM / 4) / cells.metersPerUnit
        let reach = 16 * s * s
        var rows: [[(Int, Double)]] = []
        rows.reserveCapacity(cells.count)
        for a in 0..<cells.count {
            var row: [(Int, Double)] = []
            var total = 0.0
            for b in 0..<cells.count {
                let dx = cells.x[a] - cells.x[b], dy = cells.y[a] - cells.y[b]
                let d2 = dx * dx + dy * dy
                guard d2 <= reach else { continue }
                let w = exp(-d2 / (2 * s * s))
                row.append((b, w))
                total += w
            }
            rows.append(row.map { ($0.0, $0.1 / total) })
        }
        return rows
    }

    /// The distance (m) from a point (map units) within which the belief holds
    /// `mass`: near the point when the belief agrees with it, as far as
    /// another place when that place holds more than 1 − `mass` of it.
    package func radius(holding mass: Double, aroundX px: Double, y py: Double) -> Double? {
        guard started else { return nil }
        let m = cells.metersPerUnit
        let byDistance = belief.indices.map { c -> (Double, Double) in
            let dx = (cells.x[c] - px) * m, dy = (cells.y[c] - py) * m
            return ((dx * dx + dy * dy).squareRoot(), belief[c])
        }.sorted { $0.0 < $1.0 }
        var held = 0.0
        for (d, b) in byDistance {
            held += b
            if held >= mass { return d }
        }
        return byDistance.last?.0
    }

    /// The share of the belief within `reachM` of a point (map units).
    package func share(withinM reachM: Double, ofX px: Double, y py: Double) -> Double {
        let m = cells.metersPerUnit, r2 = reachM * reachM
        var held = 0.0
        for c in belief.indices {
            let dx = (cells.x[c] - px) * m, dy = (cells.y[c] - py) * m
            if dx * dx + dy * dy <= r2 { held += belief[c] }
        }
        return held
    }

    /// The distance (m) from a point (map units) to the belief's most likely cell.
    package func distanceToMode(fromX px: Double, y py: Double) -> Double? {
        guard started, let top = belief.indices.max(by: { belief[$0] < belief[$1] }) else { return nil }
        let dx = (cells.x[top] - px) * cells.metersPerUnit, dy = (cells.y[top] - py) * cells.metersPerUnit
        return (dx * dx + dy * dy).squareRoot()
    }

    /// The belief's mean (map units) and variance per axis (m²), the cell's
    /// own extent included (a uniform square: side²/12).
    package var estimate: (x: Double, y: Double, varianceX: Double, varianceY: Double)? {
        guard started else { return nil }
        var mx = 0.0, my = 0.0
        for c in belief.indices { mx += belief[c] * cells.x[c]; my += belief[c] * cells.y[c] }
        var vx = 0.0, vy = 0.0
        for c in belief.indices {
            vx += belief[c] * (cells.x[c] - mx) * (cells.x[c] - mx)
            vy += belief[c] * (cells.y[c] - my) * (cells.y[c] - my)
        }
        let m2 = cells.metersPerUnit * cells.metersPerUnit, own = cells.cellM * cells.cellM / 12
        return (mx, my, vx * m2 + own, vy * m2 + own)
    }
}
