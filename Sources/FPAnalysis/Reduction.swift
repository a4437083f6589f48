/// The radio sets the evaluator compares: Wi-Fi alone, BLE alone, or both
/// (the union of their transmitter ids).
package enum RadioSet: String, Sendable, CaseIterable, Codable {
    case wifi, ble, combined
}

/// How a fingerprint's sample series become one value per transmitter, and
/// what a missing transmitter counts as.
package struct SignalOptions: Sendable, Equatable {
    /// RSSI that a transmitter missing on one side counts as (dBm).
    package var zeroSignal: Double
    /// Only samples with `time ≤ maxTimeMs` (nil: all), to study scan length.
    package var maxTimeMs: Int?
    /// Multiplies BLE medians in the combined set (the evaluator's BLE coefficient); 1 = off.
    package var bleWeight: Double

    package init(zeroSignal: Double = -105, maxTimeMs: Int? = nil, bleWeight: Double = 1) {
        self.zeroSignal = zeroSignal
        self.maxTimeMs = maxTimeMs
        self.bleWeight = bleWeight
    }
}

package enum Reduction {
    /// The median of a series: the middle value, or for an even count the mean
    /// of the two middle values, `(a + b) / 2` in that order (the evaluator's reducer).
    package static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let n = s.count
        return n % 2 == 0 ? (s[n / 2 - 1] + s[n / 2]) / 2 : s[n / 2]
    }

    /// One value per transmitter for a radio set: the median of its samples
    /// with `time ≤ maxTimeMs`. Transmitters with no sample in the window are absent.
    package static func reduce(_ fp: Fingerprint, set: RadioSet, options: SignalOptions) -> [String: Double] {
        var out: [String: Double] = [:]
        func add(_ samples: [Fingerprint.Sample], weight: Double) {
            var series: [String: [Double]] = [:]
            for s in samples where options.maxTimeMs.map({ s.time <= $0 }) ?? true {
                series[s.transmitter, default: []].append(s.rssi)
            }
            for (id, values) in series {
                let m = median(values)!
                // The evaluator multiplies only when a coefficient is given; ×1 is exact anyway.
                out[id] = weight == 1 ? m : m * weight
            }
        }
        switch set {
        case .wifi: add(fp.wifi, weight: 1)
        case .ble: add(fp.ble, weight: 1)
        case .combined:
            add(fp.ble, weight: options.bleWeight)
            add(fp.wifi, weight: 1)
        }
        return out
    }
}
