@testable import FPAnalysis

/// The J building's scale, the evaluator's fixed 45 m = 2250 units.
let jMetersPerUnit: @Sendable (String) -> Double = { _ in 45.0 / 2250.0 }

/// A fingerprint from literal Wi-Fi series: mac → RSSI samples (times 0, 100, 200 …).
func wifiPrint(_ id: String, _ x: Int, _ y: Int, level: String = "J1NP", _ series: [String: [Double]]) -> Fingerprint {
    var samples: [Fingerprint.Sample] = []
    for mac in series.keys.sorted() {
        for (i, r) in series[mac]!.enumerated() { samples.append(.init(transmitter: "WIFI:" + mac, rssi: r, time: i * 100)) }
    }
    return Fingerprint(id: id, level: level, x: x, y: y, wifi: samples)
}

func run(_ fps: [Fingerprint], _ estimator: Estimator, k: Int, set: RadioSet = .wifi,
         options: SignalOptions = SignalOptions()) -> CrossValidation.Result {
    CrossValidation(fingerprints: fps, options: options, metersPerUnit: jMetersPerUnit)
        .run([.init(set: set, estimator: estimator, k: k)])[0]
}
