import FPAnalysis
import FPCore
import Foundation

/// `fprint eval`'s leave-one-out on a synthetic radiomap: N fingerprints ×
/// M transmitters (each heard at about 60 % of the points, 5 samples per
/// transmitter), the combined set, NN + KNN/WKNN k = 1…3 (7 results from one
/// neighbour search). Target: 2,000 × 300 under 2 s on one core.
func evalBench(fingerprints n: Int, transmitters m: Int) {
    var rng = SeededRandom(seed: 6)
    var fps: [Fingerprint] = []
    fps.reserveCapacity(n)
    for i in 0..<n {
        var fp = Fingerprint(id: String(format: "eval-%06d", i), level: "J3NP", x: Int.random(in: 0...2250, using: &rng),
                             y: Int.random(in: 0...2900, using: &rng))
        for t in 0..<m where Double.random(in: 0..<1, using: &rng) < 0.6 {
            let base = Int.random(in: -100 ... -40, using: &rng)
            for s in 0..<5 {
                let sample = Fingerprint.Sample(
                    transmitter: t % 3 == 0 ? Fingerprint.bleID(String(format: "C5:D5:21:51:%02X:%02X", t / 256, t % 256))
                        : Fingerprint.wifiID(String(format: "02:11:22:33:%02X:%02X", t / 256, t % 256)),
                    rssi: Double(base + Int.random(in: -3...3, using: &rng)), time: s * 400)
                if t % 3 == 0 { fp.ble.append(sample) } else { fp.wifi.append(sample) }
            }
        }
        fps.append(fp)
    }
    let cases = [CrossValidation.Case(set: .combined, estimator: .nn, k: 1)]
        + [Estimator.knn, .wknn].flatMap { e in (1...3).map { CrossValidation.Case(set: .combined, estimator: e, k: $0) } }
    let cv = CrossValidation(fingerprints: fps) { _ in MapScale.jBuilding.metersPerUnit }
    var times: [Double] = []
    var median = 0.0
    for _ in 0..<3 {
        times.append(seconds { median = cv.run(cases)[6].summary.median ?? 0 })
    }
    let reduceTime = seconds { _ = SignalSpace(fps, set: .combined, options: SignalOptions()) }
    print(String(format: "eval: leave-one-out %d fingerprints × %d transmitters (combined; NN, KNN, WKNN k 1…3): "
                 + "median %.2f s of 3 runs, of which medians/vectors %.2f s (target < 2 s); WKNN k=3 median error %.2f m",
                 n, m, medianOf(times), reduceTime, median))
}

func medianOf(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
