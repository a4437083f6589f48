import FPCore
import Foundation
/// What live positioning knows of one map (floor): its stored radiomap (for
/// WKNN) and its beacon registry (for trilateration), and its scale.
package struct MapModel: Sendable {
    package let id: String
    package let floor: Int?
    package let metersPerUnit: Double
    package let radiomap: Radiomap?
    package let locator: BeaconLocator?
    /// The radiomap in cells, for the Bayes filter (`RadiomapFilter`); nil
    /// where the survey is too sparse for one (`RadiomapCells.dense`).
    package let cells: RadiomapCells?
    /// A sparse survey's cells (a walk's documents along a line): the belief
    /// over them does not place the walker, but tells how many places the
    /// signals fit, which is what the stated accuracy must cover.
    package let sparseCells: RadiomapCells?
    /// Where this floor is left or reached (map units): its stairs and lift.
    /// Empty when unknown; then a floor change is taken anywhere.
    package var passages: [MapPoint] = []

    package init(id: String, floor: Int?, metersPerUnit: Double, radiomap: Radiomap?, locator: BeaconLocator?) {
        self.id = id
        self.floor = floor
        self.metersPerUnit = metersPerUnit
        self.radiomap = radiomap
        self.locator = locator
        let all = radiomap.map { RadiomapCells($0.fingerprints, metersPerUnit: metersPerUnit) }
        cells = all.flatMap { $0.dense ? $0 : nil }
        sparseCells = all.flatMap { $0.dense ? nil : $0 }
    }

    /// The distance (m) from a point (map units) to the nearest passage; nil without passages.
    package func distanceToPassage(x: Double, y: Double) -> Double? {
        passages.map { $0.distance(to: MapPoint(x: x, y: y)) * metersPerUnit }.min()
    }
}

/// One position from one method for one window: map units, with the variance
/// (m² per axis) the filter weighs it by.
package struct Fix: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package var variance: Double
    package var transmitters: Int
    package init(x: Double, y: Double, variance: Double, transmitters: Int) {
        self.x = x
        self.y = y
        self.variance = variance
        self.transmitters = transmitters
    }
}

/// A map's stored fingerprints as signal spaces, one per radio set, so a window
/// is compared on the radios it holds: a window without a Wi-Fi scan (they come
/// every few seconds) against BLE only, not against −105 dBm for every access point.
package struct Radiomap: Sendable {
    package let fingerprints: [Fingerprint]
    let spaces: [RadioSet: SignalSpace]
    package let k: Int

    package init(_ fingerprints: [Fingerprint], k: Int = 3) {
        self.fingerprints = fingerprints
        var spaces: [RadioSet: SignalSpace] = [:]
        for set in RadioSet.allCases { spaces[set] = SignalSpace(fingerprints, set: set, options: SignalOptions()) }
        self.spaces = spaces
        self.k = k
    }

    /// Every transmitter id of the radiomap.
    package var transmitters: [String] { spaces[.combined]?.transmitters ?? [] }

    /// WKNN (weights 1/d, as eval) on the radio set the window holds. The variance
    /// is the weighted spread of the neighbours around the estimate plus
    /// `baseVariance` (m²): the radiomap's spacing limits what WKNN can tell apart.
    package func fix(_ window: Fingerprint, metersPerUnit: Double, baseVariance: Double) -> Fix? {
        let set: RadioSet = window.wifi.isEmpty ? .ble : window.ble.isEmpty ? .wifi : .combined
        guard let space = spaces[set], !fingerprints.isEmpty else { return nil }
        let reduced = Reduction.reduce(window, set: set, options: SignalOptions())
        guard !reduced.isEmpty else { return nil }
        let neighbours = space.neighbours(of: reduced, k: k)
        guard !neighbours.isEmpty else { return nil }
        // As eval's WKNN (weights 1/d), on exact positions where the documents keep them.
        var ex = 0.0, ey = 0.0, sum = 0.0
        for n in neighbours.prefix(k) {
            let w = 1 / (n.distance == 0 ? 0.0001 : n.distance), p = Self.position(fingerprints[n.index])
            ex += w * p.x
            ey += w * p.y
            sum += w
        }
        let e = (x: ex / sum, y: ey / sum)
        var spread = 0.0, weights = 0.0, squares = 0.0
        for n in neighbours {
            let w = 1 / max(n.distance, 0.0001), p = Self.position(fingerprints[n.index])
            let dx = (p.x - e.x) * metersPerUnit
            let dy = (p.y - e.y) * metersPerUnit
            spread += w * (dx * dx + dy * dy) / 2
            weights += w
            squares += w * w
        }
        // The estimate is a weighted mean of the neighbours: its variance is their
        // spread over the effective number of them, (Σw)² / Σw².
        let effective = weights * weights / squares
        return Fix(x: e.x, y: e.y, variance: baseVariance + spread / weights / effective, transmitters: reduced.count)
    }
}

extension BeaconLocator {
    /// Trilateration as `locate`, with a variance from the fit: the mean squared
    /// range residual |p − bᵢ| − dᵢ at the solution, plus `baseVariance`
    /// (ranges from one window's medians are never better than a few metres).
    /// `rangeSigmaDb`: how much a beacon's window median varies beyond the law
    /// (shadowing, the device, the beacon's age), which makes ranges err in
    /// proportion to themselves; 0: the residuals alone (the thesis' filter).
    package func fix(_ window: Fingerprint, baseVariance: Double, rangeSigmaDb: Double = 5) -> Fix? {
        guard let r = locate(window) else { return nil }
        var sum = 0.0, ranges = 0.0
        for used in r.beacons {
            let e = registry.entries[used.entry]
            let dx = (r.x - e.x) * metersPerUnit, dy = (r.y - e.y) * metersPerUnit
            let residual = (dx * dx + dy * dy).squareRoot() - used.distanceMeters
            sum += residual * residual
            ranges += used.distanceMeters
        }
        let n = Double(max(1, r.beacons.count))
        // A range read from RSSI errs in proportion to itself: σ_d / d = ln 10 · σ_dB / (10 n)
        // for the log-distance law; half of its square per axis.
        let relative = log(10) * rangeSigmaDb / (10 * pathLoss.exponent)
        let rangeVariance = pow(relative * ranges / n, 2) / 2
        return Fix(x: r.x, y: r.y, variance: baseVariance + sum / n + rangeVariance, transmitters: r.beacons.count)
    }
}
