import FPAnalysis
import FPCore
import FPDatasets
import FPTestSupport
import Foundation
import Testing

/// fprint against the UJI authors' own numbers (issue 29): for months 1–15,
/// training = `trn01`, test = `tst01`…`tst05`, the fingerprints as
/// `fprint import` stores them, the paper's kNN (k 9 and 1) and Gaussian
/// kernel (σ 4, k 12).
/// Every summary figure and every per-sample prediction of the reference
/// must come out: positions within 1e-9 m, floors exactly, p75 within 1e-6 m,
/// floor rates exactly (as printed, to 6 decimals, from the same count).
/// `UJIExactnessCLITests` runs two months through the store and the binary.
@Suite struct UJIReferenceTests {
    static let methods = ["knn9", "knn1", "gk4k12"].map { HoldoutMethod($0)! }

    static let documents = TableDocuments(format: "uji-longterm", dataset: "uji-lib-longterm", mapTemplate: "UJI-LIB-{floor}",
                                          importedAt: "2026-11-26T00:00:00.000Z")
    static let madrid = TableTime(timeZone: TimeZone(identifier: "Europe/Madrid")!)

    /// One month's training and test fingerprints. Months 1–3 are read as
    /// eval reads them from the store (rows → documents → canonical text →
    /// eval's reader), and must equal what `direct` makes of the rows, which
    /// the other months then use: the debug build's JSON round trip would
    /// cost the suite a minute.
    static func month(_ m: Int, campaigns: [UJILongTerm.Campaign]) throws -> (train: [Fingerprint], test: [Fingerprint], checked: Bool) {
        let mine = campaigns.filter { Int($0.month) == m }
        let names = TransmitterNames()
        var checked = true
        func fingerprints(_ c: UJILongTerm.Campaign) throws -> [Fingerprint] {
            let table = try UJILongTerm.read(c, time: madrid)
            let stem = "\(c.month):\(c.name)"
            let direct = Self.direct(table, stem: stem)
            guard m <= 3 else { return direct }
            let stored = try documents.documents(table, stem: stem).map { d in
                try Fingerprint(id: d.id, text: CanonicalJSON.string(d.body), names: names)
            }
            checked = checked && stored == direct
            return stored
        }
        let train = try mine.filter { $0.name == "trn01" }.flatMap(fingerprints)
        let test = try mine.filter { !$0.isTraining }.flatMap(fingerprints)
        return (train, test, checked)
    }

    /// The fingerprints a table's documents read as, made from its rows.
    static func direct(_ table: FingerprintTable, stem: String) -> [Fingerprint] {
        let columns = DeclaredColumns(ids: table.transmitters.map { "WIFI:" + $0 })
        return table.rows.map { row in
            var fp = Fingerprint(id: documents.id(file: stem, row: row), level: documents.map(of: row),
                                 x: Int(row.x!.rounded()), y: Int(row.y!.rounded()),
                                 wifi: row.readings.map { .init(transmitter: columns.ids[$0.transmitter], rssi: $0.rssi, time: 0) })
            fp.labels.exactX = row.x
            fp.labels.exactY = row.y
            fp.labels.inMetres = true
            fp.labels.floor = row.floor
            fp.labels.tags = row.tags.sorted { $0.key < $1.key }.map { Fingerprint.Tag($0.key, $0.value) }
            fp.labels.dataset = documents.dataset
            fp.labels.createdAtMs = row.timeMs!
            fp.labels.columns = columns
            return fp
        }
    }

    /// What one month gives against the reference: rows and predictions that match, and the differences.
    struct Outcome: Sendable {
        var rows = 0, predictions = 0
        var differences: [String] = []
    }

    static func compare(month m: Int, campaigns: [UJILongTerm.Campaign], summary: [UJIReference.SummaryRow]) throws -> Outcome {
        var out = Outcome()
        let (train, test, checked) = try month(m, campaigns: campaigns)
        if !checked { out.differences.append("month \(m): the stored fingerprints differ from the rows") }
        let results = Holdout(train: train, test: test, metersPerUnit: { _ in 1 }).run(methods)
        for r in results {
            guard let ref = summary.first(where: { $0.month == m && $0.method == r.method.description }) else {
                out.differences.append("month \(m) \(r.method): not in the reference")
                continue
            }
            let rate = String(format: "%.6f", r.summary.floorSuccessRate ?? -1)
            let p75 = r.summary.p75Prctile ?? .nan
            if r.predictions.count == ref.samples, abs(p75 - ref.p75) <= 1e-6, rate == ref.floorRateText {
                out.rows += 1
            } else {
                out.differences.append("month \(m) \(r.method): p75 \(p75) vs \(ref.p75Text), floor \(rate) vs "
                    + "\(ref.floorRateText), \(r.predictions.count) vs \(ref.samples) samples")
            }
            guard m <= 3, r.method.kind == .knn else { continue }
            let expected = try UJIReference.predictions(month: m, method: r.method.description)
            if expected.count != r.predictions.count { out.differences.append("month \(m) \(r.method): \(r.predictions.count) predictions") }
            for (i, (p, e)) in zip(r.predictions, expected).enumerated() {
                let actual = test[i].labels
                let same = abs(p.x - e.x) <= 1e-9 && abs(p.y - e.y) <= 1e-9 && p.floor == e.floor
                    && abs(actual.exactX! - e.actualX) <= 1e-9 && abs(actual.exactY! - e.actualY) <= 1e-9
                    && actual.floor == e.actualFloor
                if same { out.predictions += 1 } else if out.differences.count < 20 {
                    out.differences.append("month \(m) \(r.method) test \(i + 1): (\(p.x), \(p.y), \(p.floor)) vs (\(e.x), \(e.y), \(e.floor))")
                }
            }
        }
        return out
    }

    @Test func everyFigureAndPredictionOfMonths1To15() async throws {
        let root = try await PublicDatasets.extracted("uji-lib-longterm-m01-15.tar.xz", folder: "uji-lib-longterm")
        let campaigns = try UJILongTerm.campaigns(root: root.path)
        let summary = try UJIReference.summary()
        #expect(summary.count == 45)
        // On one thread of its own, nicer than the rest: a minute of a debug build's arithmetic
        // must neither hold the cooperative pool nor take both cores from tests that time themselves.
        let outcomes = try await onThread("uji-months") {
            try (1...15).map { try Self.compare(month: $0, campaigns: campaigns, summary: summary) }
        }
        let differences = outcomes.flatMap(\.differences)
        #expect(differences.isEmpty, "\(differences.count) differences:\n\(differences.joined(separator: "\n"))")
        #expect(outcomes.reduce(0) { $0 + $1.rows } == 45)
        #expect(outcomes.reduce(0) { $0 + $1.predictions } == 6 * 3120)
    }
}
