import FPTestSupport
import Foundation

/// The UJI authors' own results (their Matlab code run in GNU Octave 7.3):
/// `summary-m01-15.tsv` and the per-sample `mMM-knn9.csv`/`mMM-knn1.csv`.
struct UJIReference: Sendable {
    struct SummaryRow: Equatable, Sendable {
        var month: Int
        var method: String
        /// As printed: 6 decimals.
        var p75: Double
        var floorRate: Double
        var samples: Int
        var p75Text: String
        var floorRateText: String
    }

    struct Prediction: Equatable, Sendable {
        var x: Double, y: Double, floor: Int
        var actualX: Double, actualY: Double, actualFloor: Int
    }

    static func summary() throws -> [SummaryRow] {
        let text = try String(contentsOf: PublicDatasets.ujiReference.appendingPathComponent("summary-m01-15.tsv"),
                              encoding: .utf8)
        return try text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 5, let month = Int(f[0]), let p75 = Double(f[2]), let rate = Double(f[3]),
                let samples = Int(f[4])
            else { throw DatasetUnavailableInTest("summary line not understood: \(line)") }
            return SummaryRow(month: month, method: f[1], p75: p75, floorRate: rate, samples: samples, p75Text: f[2],
                              floorRateText: f[3])
        }
    }

    static func predictions(month: Int, method: String) throws -> [Prediction] {
        let name = String(format: "m%02d-%@.csv", month, method)
        let text = try String(contentsOf: PublicDatasets.ujiReference.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let v = line.split(separator: ",").compactMap { Double($0) }
            guard v.count == 6 else { throw DatasetUnavailableInTest("\(name): line not understood: \(line)") }
            return Prediction(x: v[0], y: v[1], floor: Int(v[2]), actualX: v[3], actualY: v[4], actualFloor: Int(v[5]))
        }
    }
}

struct DatasetUnavailableInTest: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
