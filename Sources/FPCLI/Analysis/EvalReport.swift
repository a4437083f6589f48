import FPAnalysis
import FPCore
import Foundation

/// The three shapes of eval's output: table, JSON, CSV. JSON numbers are the
/// exact doubles (shortest round-trip form), so results compare bit for bit.
struct EvalReport {
    var fingerprints: [Fingerprint]
    var options: SignalOptions
    var results: [CrossValidation.Result]
    var worst: Int

    static func number(_ d: Double?) -> JSONValue { d.map { JSONValue.double($0) } ?? .null }

    var json: JSONValue {
        let rows: [JSONValue] = results.map { r in
            let s = r.summary
            let worstRows: [JSONValue] = s.worst.prefix(worst).map { i in
                let o = r.outcomes[i]
                let fp = fingerprints[i]
                return ["id": .string(fp.id), "error": Self.number(o.error), "level": .string(fp.level),
                        "x": .int(Int64(fp.x)), "y": .int(Int64(fp.y)),
                        "estimate": ["x": Self.number(o.estimate?.x), "y": Self.number(o.estimate?.y),
                                     "level": .string(o.estimate?.level ?? "")]]
            }
            return [
                "set": .string(r.evalCase.set.rawValue), "estimator": .string(r.evalCase.estimator.rawValue),
                "k": .int(Int64(r.evalCase.k)), "count": .int(Int64(s.count)),
                "unlocalised": .int(Int64(s.unlocalised)), "mean": Self.number(s.mean),
                "median": Self.number(s.median), "p75": Self.number(s.p75), "p95": Self.number(s.p95),
                "max": Self.number(s.max), "wrongFloor": .int(Int64(s.wrongFloor)),
                "floorHitRate": Self.number(s.floorHitRate), "worst": .array(worstRows),
            ]
        }
        return [
            "measurements": .int(Int64(fingerprints.count)), "order": "import",
            "zeroSignal": .double(options.zeroSignal), "maxTimeMs": options.maxTimeMs.map { .int(Int64($0)) } ?? .null,
            "bleWeight": .double(options.bleWeight), "unit": "m", "results": .array(rows),
        ]
    }

    static func fixed(_ d: Double?, _ digits: Int = 2) -> String { d.map { String(format: "%.\(digits)f", $0) } ?? "-" }

    var csvLines: [String] {
        var lines = ["set,estimator,k,count,unlocalised,mean_m,median_m,p75_m,p95_m,max_m,wrong_floor,floor_hit_rate"]
        for r in results {
            let s = r.summary
            let cells: [String] = [
                r.evalCase.set.rawValue, r.evalCase.estimator.rawValue, String(r.evalCase.k), String(s.count),
                String(s.unlocalised),
            ] + [s.mean, s.median, s.p75, s.p95, s.max].map { $0.map { "\($0)" } ?? "" }
                + [String(s.wrongFloor), s.floorHitRate.map { "\($0)" } ?? ""]
            lines.append(cells.joined(separator: ","))
        }
        return lines
    }

    /// The sets the table leaves out with one line each (JSON and CSV keep
    /// them): those none of whose fingerprints could be localised in any
    /// case, a radio the measurements never heard (Wi-Fi on a BLE-only
    /// floor); none when that is every set, whose rows then say so.
    var hiddenSets: [String] {
        var sets: [String] = []
        for r in results where !sets.contains(r.evalCase.set.rawValue) { sets.append(r.evalCase.set.rawValue) }
        let empty = sets.filter { set in
            results.filter { $0.evalCase.set.rawValue == set }.allSatisfy { $0.summary.count == 0 }
        }
        return empty.count == sets.count ? [] : empty
    }

    var tableLines: [String] {
        let hidden = hiddenSets
        let rows = results.filter { !hidden.contains($0.evalCase.set.rawValue) }.map { r -> [String] in
            let s = r.summary
            return [r.evalCase.set.rawValue, r.evalCase.estimator.label, String(r.evalCase.k), String(s.count),
                    String(s.unlocalised), Self.fixed(s.mean), Self.fixed(s.median), Self.fixed(s.p75),
                    Self.fixed(s.p95), Self.fixed(s.max),
                    s.floorHitRate.map { String(format: "%.1f%%", $0 * 100) } ?? "-"]
        }
        var lines = Terminal.table(
            ["SET", "ESTIMATOR", "K", "COUNT", "UNLOCALISED", "MEAN m", "MEDIAN m", "P75 m", "P95 m", "MAX m", "FLOOR HIT"],
            rows, rightAligned: [2, 3, 4, 5, 6, 7, 8, 9, 10])
        for set in hidden {
            lines.append("\(set): left out: none of the measurements has readings of it")
        }
        guard worst > 0 else { return lines }
        lines.append("")
        lines.append("worst measurements:")
        for r in results where !r.summary.worst.isEmpty {
            let items = r.summary.worst.prefix(worst).map { i in
                "\(fingerprints[i].id.prefix(8)) \(Self.fixed(r.outcomes[i].error)) m"
            }
            lines.append("  \(r.evalCase.set.rawValue) \(r.evalCase.estimator.label) k=\(r.evalCase.k): "
                + items.joined(separator: ", "))
        }
        return lines
    }
}
