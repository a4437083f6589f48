import FPAnalysis
import FPCore
import Foundation
import Hummingbird

/// A map's leave-one-out positioning errors (`fprint eval`'s WKNN k=3 per
/// radio set) as `fprint plot errors` draws them: CDF and box plots.
extension Pages {
    /// Leave-one-out is quadratic in the points: past this many, the page points to `fprint eval`.
    static let maxEvalPoints = 1000

    func errors(_ id: String) async throws -> Response {
        let limit = Self.maxEvalPoints + 1
        let fps = try await SurveyReads.fingerprints(dashboard.store, map: id, limit: limit)
        var context: [String: Any] = ["id": id, "link": Self.link(id)]
        if fps.count < 2 {
            context["note"] = "Leave-one-out needs at least 2 measurements on the map; it has \(fps.count)."
        } else if fps.count > Self.maxEvalPoints {
            context["note"] = "More than \(Self.maxEvalPoints) measurements: run `fprint eval --map \(id)` instead."
        } else {
            let metersPerUnit = (dashboard.options.maps[id] ?? DashboardMap(id: id)).metersPerUnit
            // CPU-bound for a while: off the cooperative pool, as store work is.
            let rows = await BlockingWork.run("fprint.dashboard.eval") { () -> [(label: String, summary: ErrorSummary)] in
                let cv = CrossValidation(fingerprints: fps) { _ in metersPerUnit }
                let cases = RadioSet.allCases.map { CrossValidation.Case(set: $0, estimator: .wknn, k: 3) }
                return cv.run(cases).map { (label: "\($0.evalCase.set.rawValue) WKNN k=3", summary: $0.summary) }
            }
            let usable = rows.filter { !$0.summary.sortedErrors.isEmpty }
            context["plot"] = SurveyReads.inline(SVGPlot.errors(
                title: "Leave-one-out errors on \(id) (\(fps.count) measurements)",
                results: usable.map { (label: $0.label, sortedErrors: $0.summary.sortedErrors) }))
            context["hasRows"] = true
            context["rows"] = rows.map { row -> [String: Any] in
                let s = row.summary
                func m(_ v: Double?) -> String { v.map { String(format: "%.2f", $0) } ?? "" }
                return ["label": row.label, "count": s.count, "median": m(s.median), "p75": m(s.p75), "p95": m(s.p95),
                        "unlocalised": s.unlocalised]
            }
        }
        return page("Errors on \(id)", "errors", context)
    }
}
