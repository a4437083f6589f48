import FPAnalysis
import FPCore
import Foundation
import Hummingbird

/// A map's leave-one-out positioning errors (`fprint eval`'s WKNN k=3 per
/// radio set) as `fprint plot errors` draws them: CDF and box plots.
extension Pages {
    /// Leave-one-out is quadratic in the points (2,000 take about a second):
    /// past this many, the page points to `fprint eval`.
    static let maxEvalPoints = 3000

    func errors(_ id: String) async throws -> Response {
        let sequence = try await dashboard.index.lastSequence()
        let (store, metersPerUnit) = (dashboard.store, (dashboard.options.maps[id] ?? DashboardMap(id: id)).metersPerUnit)
        // Worked out once per store sequence, as the map's plots are.
        let table = try await dashboard.plots.errors(map: id, sequence: sequence) {
            let fps = try await SurveyReads.fingerprints(store, map: id, limit: Self.maxEvalPoints + 1)
            guard (2...Self.maxEvalPoints).contains(fps.count) else { return ErrorTable(count: fps.count, rows: []) }
            // CPU-bound for a while: off the cooperative pool, as store work is.
            return await BlockingWork.run("fprint.dashboard.eval") { () -> ErrorTable in
                let cv = CrossValidation(fingerprints: fps) { _ in metersPerUnit }
                let cases = RadioSet.allCases.map { CrossValidation.Case(set: $0, estimator: .wknn, k: 3) }
                return ErrorTable(count: fps.count, rows: cv.run(cases).map { (label: "\($0.evalCase.set.rawValue) WKNN k=3", summary: $0.summary) })
            }
        }
        var context: [String: Any] = ["id": id, "link": Self.link(id)]
        if table.count < 2 {
            context["note"] = "Leave-one-out needs at least 2 measurements on the map; it has \(table.count)."
        } else if table.count > Self.maxEvalPoints {
            context["note"] = "More than \(Self.maxEvalPoints) measurements: run `fprint eval --map \(id)` instead."
        } else {
            context["plot"] = SurveyReads.inline(SVGPlot.errors(
                title: "Leave-one-out errors on \(id) (\(table.count) measurements)",
                results: table.rows.map { (label: $0.label, sortedErrors: $0.summary.sortedErrors, total: $0.summary.count + $0.summary.unlocalised) }))
            context["hasRows"] = true
            context["rows"] = table.rows.map { row -> [String: Any] in
                let s = row.summary
                func m(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "" }
                return ["label": row.label, "count": s.count, "median": m(s.median), "p75": m(s.p75), "p95": m(s.p95),
                        "unlocalised": s.unlocalised]
            }
        }
        return page("Errors on \(id)", "errors", context)
    }
}

/// A map's leave-one-out results; `count` is the measurements read (more than the limit: not run).
struct ErrorTable: Sendable {
    var count: Int
    var rows: [(label: String, summary: ErrorSummary)]
}
