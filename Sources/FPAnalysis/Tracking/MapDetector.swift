import Foundation

/// Which map (floor) the signals come from, by the strongest signals (as the
/// iBeacon app did), with hysteresis.
///
/// Every transmitter belongs to one map: a registry beacon to its registry's
/// map, any other transmitter to the map whose radiomap heard it strongest.
/// A window scores each map by the mean of the 3 strongest medians among that
/// map's transmitters; the scores become probabilities (softmax, 3 dB
/// temperature: a map 3 dB weaker is e times less likely). The reported map
/// changes only after another map has been the most likely for `hold`
/// windows in a row and its mean probability over them is at least
/// `minConfidence`; the confidence is the reported map's mean probability
/// over the last `hold` windows.
///
/// Why the floor of confidence: away from stairs and lifts a floor's signals
/// through the ceiling can edge out a weak spot of the walker's own floor for
/// a few windows (J2NP's corridor under J3NP, issue 59), barely (0.5–0.7);
/// on real stairs the new floor wins by 6 dB and more (0.8–1).
///
/// Where the building's stairs and lifts are known, the tracker also holds a
/// change back while the walker is far from all of them (`observe`'s
/// `mayChange`): nobody changes floor in the middle of a corridor.
package struct MapDetector: Sendable {
    package let owner: [String: String]
    package let maps: [String]
    package let hold: Int
    package let temperatureDb: Double
    package let minConfidence: Double
    package private(set) var current: String?
    private var challenger: (map: String, windows: Int)?
    private var recent: [[String: Double]] = []

    package init(owner: [String: String], hold: Int = 3, temperatureDb: Double = 3, minConfidence: Double = 0.75) {
        self.owner = owner
        maps = Array(Set(owner.values)).sorted()
        self.hold = max(1, hold)
        self.temperatureDb = temperatureDb
        self.minConfidence = minConfidence
    }

    /// Transmitter owners from the maps' radiomaps and registries.
    package static func owners(_ models: [MapModel]) -> [String: String] {
        var best: [String: (map: String, rssi: Double)] = [:]
        for m in models {
            guard let radiomap = m.radiomap else { continue }
            for fp in radiomap.fingerprints {
                // Keyed as the tracker's windows are observed: a beacon by the identity it advertised.
                for (id, value) in Reduction.reduce(fp.keyed(by: .identity), set: .combined, options: SignalOptions()) {
                    if let b = best[id], b.rssi >= value { continue }
                    best[id] = (m.id, value)
                }
            }
        }
        var owner = best.mapValues(\.map)
        for m in models {
            for id in m.locator?.registry.transmitterIDs ?? [] { owner[id] = m.id }
        }
        return owner
    }

    /// Per-map probabilities for one window's medians (empty when nothing known is heard).
    package func probabilities(_ medians: [String: Double]) -> [String: Double] {
        var strongest: [String: [Double]] = [:]
        for (id, value) in medians {
            guard let map = owner[id] else { continue }
            strongest[map, default: []].append(value)
        }
        var scores: [String: Double] = [:]
        for (map, values) in strongest {
            let top = values.sorted(by: >).prefix(3)
            scores[map] = top.reduce(0, +) / Double(top.count)
        }
        guard let best = scores.values.max() else { return [:] }
        var weights: [String: Double] = [:]
        for (map, s) in scores { weights[map] = exp((s - best) / temperatureDb) }
        let total = weights.values.reduce(0, +)
        return weights.mapValues { $0 / total }
    }

    /// Folds in one window; returns the reported map and its confidence (nil before anything known was heard).
    /// `mayChange` false: the walker is nowhere near a way off this floor, so the
    /// reported map stays (a challenger keeps its count for when they are).
    package mutating func observe(_ medians: [String: Double], mayChange: Bool = true) -> (map: String, confidence: Double)? {
        let p = probabilities(medians)
        if !p.isEmpty {
            recent.append(p)
            if recent.count > hold { recent.removeFirst(recent.count - hold) }
            let likeliest = p.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }!.key
            if current == nil {
                current = likeliest
            } else if likeliest == current {
                challenger = nil
            } else {
                let n = challenger?.map == likeliest ? challenger!.windows + 1 : 1
                challenger = (likeliest, n)
                let sure = recent.suffix(hold).reduce(0) { $0 + ($1[likeliest] ?? 0) } / Double(min(hold, recent.count))
                if n >= hold && sure >= minConfidence && mayChange {
                    current = likeliest
                    challenger = nil
                }
            }
        }
        guard let current, !recent.isEmpty else { return nil }
        let confidence = recent.reduce(0) { $0 + ($1[current] ?? 0) } / Double(recent.count)
        return (current, confidence)
    }
}
