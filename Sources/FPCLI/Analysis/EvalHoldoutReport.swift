import FPAnalysis
import FPCore
import Foundation

/// The shapes of a train/test evaluation's output: table, CSV, JSON (exact
/// doubles), and the per-sample predictions CSV. Each 75th percentile is
/// labelled with how it was computed: `prctile` (Matlab's and Octave's, what
/// the datasets' papers report) or nearest rank (fprint's other figures).
struct EvalHoldoutReport {
    struct Group: Sendable {
        /// The --group-by value, nil without grouping.
        var value: String?
        var train: Int
        var test: [Fingerprint]
        var space: HoldoutSpace
        var results: [Holdout.Result]
    }

    var options: HoldoutOptions
    var set: RadioSet
    var signal: SignalOptions
    var groups: [Group]
    var seconds: Double

    func write(json: Bool, csv: Bool, digits: Int, predictions: String?) throws {
        if let predictions { try writePredictions(to: predictions) }
        if json {
            Terminal.out(CanonicalJSON.string(self.json))
        } else if csv {
            for line in csvLines { Terminal.out(line) }
        } else {
            for line in tableLines(digits: digits) { Terminal.out(line) }
            let tests = groups.reduce(0) { $0 + $1.test.count }
            Terminal.err(String(format: "%d test fingerprints%@, evaluated in %.2f s", tests,
                                options.groupBy == nil ? "" : " in \(Terminal.counted(groups.count, "group"))", seconds))
        }
    }

    static func number(_ d: Double?) -> JSONValue { d.map { $0.isFinite ? .double($0) : .null } ?? .null }

    var json: JSONValue {
        let rows: [JSONValue] = groups.map { g in
            let results: [JSONValue] = g.results.map { r in
                let s = r.summary
                return ["method": .string(r.method.description), "count": .int(Int64(s.count)), "mean": Self.number(s.mean),
                        "median": Self.number(s.median), "p75Prctile": Self.number(s.p75Prctile),
                        "p75NearestRank": Self.number(s.p75NearestRank), "p95NearestRank": Self.number(s.p95NearestRank),
                        "max": Self.number(s.max), "floorHits": .int(Int64(s.floorHits)),
                        "floorSuccessRate": Self.number(s.floorSuccessRate)]
            }
            return ["group": g.value.map { .string($0) } ?? .null, "train": .int(Int64(g.train)),
                    "test": .int(Int64(g.test.count)), "columns": .int(Int64(g.space.columnCount)),
                    "results": .array(results)]
        }
        return ["mode": "train-test", "train": .string(options.train ?? ""), "test": .string(options.test ?? ""),
                "groupBy": options.groupBy.map { .string($0) } ?? .null, "set": .string(set.rawValue),
                "zeroSignal": .double(signal.zeroSignal), "maxTimeMs": signal.maxTimeMs.map { .int(Int64($0)) } ?? .null,
                "bleWeight": .double(signal.bleWeight), "unit": "m", "groups": .array(rows),
                // Where the test fingerprints came from: a plot of these figures credits them.
                "datasets": .array(Set(groups.flatMap { $0.test.compactMap(\.labels.dataset) }).sorted().map { .string($0) })]
    }

    static func cell(_ d: Double?) -> String { d.map { "\($0)" } ?? "" }

    var csvLines: [String] {
        var lines = ["group,method,train,test,mean_m,median_m,p75_prctile_m,p75_nearest_rank_m,p95_nearest_rank_m,max_m,floor_hits,floor_success_rate"]
        for g in groups {
            for r in g.results {
                let s = r.summary
                lines.append(([Export.csvField(g.value ?? ""), r.method.description, String(g.train), String(g.test.count)]
                    + [s.mean, s.median, s.p75Prctile, s.p75NearestRank, s.p95NearestRank, s.max].map(Self.cell)
                    + [String(s.floorHits), Self.cell(s.floorSuccessRate)]).joined(separator: ","))
            }
        }
        return lines
    }

    func tableLines(digits: Int) -> [String] {
        func fixed(_ d: Double?) -> String { d.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        let grouped = options.groupBy != nil
        var rows: [[String]] = []
        for g in groups {
            for r in g.results {
                let s = r.summary
                rows.append((grouped ? [g.value ?? ""] : []) + [
                    r.method.description, String(g.train), String(g.test.count), fixed(s.mean), fixed(s.median),
                    fixed(s.p75Prctile), fixed(s.p75NearestRank), fixed(s.p95NearestRank), fixed(s.max),
                    s.floorSuccessRate.map { String(format: "%.\(digits)f%%", $0 * 100) } ?? "-",
                ])
            }
        }
        let header = (grouped ? [options.groupBy!.uppercased()] : []) + [
            "METHOD", "TRAIN", "TEST", "MEAN m", "MEDIAN m", "P75 m (prctile)", "P75 m (rank)", "P95 m (rank)", "MAX m", "FLOOR OK",
        ]
        let first = grouped ? 1 : 0
        return Terminal.table(header, rows, rightAligned: Set((first + 1)..<header.count))
    }

    /// One line per group, method and test fingerprint, in file order.
    func writePredictions(to path: String) throws {
        var text = "group,method,test_id,predicted_x_m,predicted_y_m,predicted_floor,actual_x_m,actual_y_m,actual_floor,error_m,floor_hit\n"
        for g in groups {
            let trainCount = g.space.trainCount
            for r in g.results {
                for p in r.predictions {
                    let q = trainCount + p.test
                    let cells = [Export.csvField(g.value ?? ""), r.method.description, Export.csvField(g.test[p.test].id),
                                 Self.cell(p.x), Self.cell(p.y), p.floor == Int.min ? "" : Export.csvField(g.space.floorName(p.floor)),
                                 Self.cell(g.space.x[q]), Self.cell(g.space.y[q]), Export.csvField(g.space.floorName(g.space.floor[q])),
                                 Self.cell(p.error), p.floorHit ? "1" : "0"]
                    text += cells.joined(separator: ",") + "\n"
                }
            }
        }
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw CommandFailure("\(path): cannot write the file: \(error.localizedDescription)", .ioError)
        }
        Terminal.err("wrote \(path)")
    }
}
