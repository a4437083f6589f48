import FPAnalysis
import FPCore

/// The index's limits and alerts, as `fprint alerts --history` lists them:
/// the active ones first, then the latest 50 past ones, newest first.
struct AlertsPanel: Sendable {
    let alerts: [FPAnalysis.Alert]

    static let pastShown = 50

    var context: [String: Any] {
        let active = alerts.filter(\.isActive).sorted { $0.since > $1.since }
        let past = alerts.filter { !$0.isActive }.sorted { ($0.until ?? 0) > ($1.until ?? 0) }
        let rows = active + past.prefix(Self.pastShown)
        var summary = active.isEmpty ? "No alert is active" : "\(active.count) active"
        summary += past.isEmpty ? "" : ", \(past.count) past" + (past.count > Self.pastShown ? ", the latest \(Self.pastShown) shown" : "")
        return [
            "summary": summary,
            "hasRows": !rows.isEmpty,
            "rows": rows.map { a -> [String: Any] in
                let unit = a.rule.figure.unit
                let worst = a.worst.map { a.rule.figure == .silence ? AlertUnit.duration(Int64($0)) : unit.text($0) } ?? "never heard"
                return ["rule": a.rule.id, "subject": a.subject, "since": Pages.time(a.since),
                        "until": a.until.map(Pages.time) ?? "active", "state": a.isActive ? "active" : "past",
                        "worst": worst, "limit": a.rule.summary]
            },
        ]
    }
}
