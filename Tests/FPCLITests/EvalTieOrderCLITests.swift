import FPCore
import Foundation
import Testing

/// radio-localization-eval breaks ties between equally distant neighbours by
/// the row order of its input file. These documents come as the evaluator's
/// files do: ids m1…m2000 in row order (so id text order, m1, m10, m100, …,
/// is another order) and no `createdAt`.
@Suite struct EvalTieOrderCLITests {
    static let count = 2000
    static let macs = (0..<12).map { String(format: "02:00:00:00:00:%02X", $0) }

    /// Document m(i+1) hears three of 12 access points once each, at whole
    /// dBm. Rows i and i + 1000 (i < 500) are twins: the same signals at
    /// different places, so every other unknown whose nearest is one of a
    /// pair has a tie between them (integer signals: sums of squares are
    /// exact, ties exact). The row order takes m(i+1), the id text order
    /// often m(i+1001) (m1150 < m150).
    struct Row {
        var id: String
        var x: Int
        var y: Int
        var signals: [Int: Int]  // mac index → rssi
    }

    static let rows: [Row] = {
        var rng = SeededRandom(seed: 13)
        var signals: [[Int: Int]] = []
        for i in 0..<count {
            if (1000..<1500).contains(i) {
                signals.append(signals[i - 1000])
                continue
            }
            var s: [Int: Int] = [:]
            while s.count < 3 { s[Int.random(in: 0..<macs.count, using: &rng)] = Int.random(in: -80 ... -60, using: &rng) }
            signals.append(s)
        }
        return (0..<count).map { i in
            Row(id: "m\(i + 1)", x: Int.random(in: 0...2250, using: &rng), y: Int.random(in: 0...2900, using: &rng),
                signals: signals[i])
        }
    }()

    /// The evaluator's nearest neighbour of each row: the first row (in
    /// `order`) at the strictly smallest distance (missing side −105; none in
    /// common: no neighbour). Squared distances are whole numbers, compared exactly.
    static func nearest(in order: [Int]) -> [Int: Int] {
        let vectors = rows.map { r in (0..<macs.count).map { r.signals[$0] ?? -105 } }
        let heard = rows.map { r in r.signals.keys.reduce(0) { $0 | 1 << $1 } }
        var out: [Int: Int] = [:]
        for i in rows.indices {
            var best: (j: Int, d: Int)?
            for j in order where j != i && heard[i] & heard[j] != 0 {
                var d = 0
                for m in 0..<macs.count {
                    let diff = vectors[i][m] - vectors[j][m]
                    d += diff * diff
                }
                if best == nil || d < best!.d { best = (j, d) }
            }
            if let best { out[i] = best.j }
        }
        return out
    }

    func document(_ r: Row) -> [String: Any] {
        ["x": r.x, "y": r.y, "level": "J1NP",
         "wifiScans": r.signals.keys.sorted().map { ["mac": Self.macs[$0], "rssi": r.signals[$0]!, "time": 100] },
         "bleScans": [[String: Any]]()]
    }

    /// NN (Wi-Fi) as JSON: every measurement's estimate by id, and the result row.
    func evalNN(_ fp: FprintRunner) async throws -> (text: String, estimates: [String: [Int]], result: [String: Any]) {
        let r = try await fp.run(["eval", "--set", "wifi", "--estimator", "nn", "--json", "--worst", "\(Self.count)"])
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require((try fp.json(r.stdout)["results"] as? [[String: Any]])?.first)
        var estimates: [String: [Int]] = [:]
        for w in try #require(result["worst"] as? [[String: Any]]) {
            let e = try #require(w["estimate"] as? [String: Any])
            estimates[try #require(w["id"] as? String)] = [(e["x"] as? NSNumber)?.intValue ?? -1, (e["y"] as? NSNumber)?.intValue ?? -1]
        }
        return (r.stdout, estimates, result)
    }

    @Test func tiesFallInTheFileRowOrderThroughImportAndExport() async throws {
        let rows = Self.rows
        let expected = Self.nearest(in: Array(rows.indices))
        // The data is worth testing: many ties decided by the order, and id
        // text order (what fprint used to take) would pick other neighbours.
        let byText = Self.nearest(in: rows.indices.sorted { rows[$0].id < rows[$1].id })
        let differing = rows.indices.filter { expected[$0] != byText[$0] }
        #expect(differing.count > 100, "\(differing.count)")

        let fp = try FprintRunner()
        try await importDocuments(fp, rows.map { ($0.id, document($0)) })
        let first = try await evalNN(fp)
        #expect(first.estimates.count == expected.count)
        for i in rows.indices {
            let want = expected[i].map { [rows[$0].x, rows[$0].y] }
            #expect(first.estimates[rows[i].id] == want, "\(rows[i].id)")
        }
        // The reported max is the evaluator's: the last in file order among equal errors.
        let errors = rows.indices.compactMap { i in
            expected[i].map { j -> (i: Int, e: Double) in
                let dx = Double(rows[j].x - rows[i].x), dy = Double(rows[j].y - rows[i].y)
                return (i, (dx * dx + dy * dy).squareRoot() * 45 / 2250)
            }
        }
        let maxError = try #require(errors.map(\.e).max())
        let worst = try #require((first.result["worst"] as? [[String: Any]])?.first)
        #expect(worst["id"] as? String == rows[errors.last { $0.e == maxError }!.i].id)

        // export couch-view writes the same order, so a round trip changes nothing.
        let view = try await fp.run(["export", "couch-view"])
        #expect(view.status == 0, "\(view.stderr)")
        let ids = try #require(try fp.json(view.stdout)["rows"] as? [[String: Any]]).compactMap { $0["id"] as? String }
        #expect(ids == rows.map(\.id))
        var other = fp
        other.environment["FPRINT_DB"] = fp.home.appendingPathComponent("round-trip.sqlite").path
        let file = fp.home.appendingPathComponent("view.json")
        try Data(view.stdout.utf8).write(to: file)
        let imported = try await other.run(["import", file.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await evalNN(other).text == first.text)
    }
}
