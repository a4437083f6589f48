import FPAnalysis
import FPCore
import Foundation

/// `fprint alerts` output: a table, or a JSON object per alert (also the webhook's `alert`).
struct AlertsReport {
    let alerts: [Alert]
    let now: Int64

    func print(json: Bool) {
        if json {
            for a in alerts { Terminal.out(CanonicalJSON.string(Self.json(a))) }
            return
        }
        let rows = alerts.map { a -> [String] in
            let unit = a.rule.figure.unit
            let worst = a.worst.map { a.rule.figure == .silence ? AlertUnit.duration(Int64($0)) : unit.text($0) } ?? "never heard"
            return [a.rule.id, a.subject, ISOTime.string(millisecondsSince1970: a.since),
                    a.until.map { ISOTime.string(millisecondsSince1970: $0) } ?? "active", worst, a.rule.summary]
        }
        for line in Terminal.table(["RULE", "SUBJECT", "SINCE", "UNTIL", "WORST", "LIMIT"], rows) { Terminal.out(line) }
    }

    static func json(_ a: Alert) -> JSONValue {
        let unit = a.rule.figure.unit
        var o: JSONObject = [
            "rule": .string(a.rule.id), "figure": .string(a.rule.figure.rawValue), "subject": .string(a.subject),
            "compare": .string(a.rule.comparison.rawValue), "limit": .double(unit.shown(a.rule.limit)), "unit": .string(unit.shownUnit),
            "since": .string(ISOTime.string(millisecondsSince1970: a.since)), "active": .bool(a.isActive),
            "values": .array(a.values.map { v in
                ["at": .string(ISOTime.string(millisecondsSince1970: v.at)), "value": .double(unit.shown(v.value)), "document": .string(v.document)]
            }),
        ]
        o["until"] = a.until.map { .string(ISOTime.string(millisecondsSince1970: $0)) } ?? .null
        o["worst"] = a.worst.map { .double(unit.shown($0)) } ?? .null
        o["holdSeconds"] = .double(Double(a.rule.holdMs) / 1000)
        return .object(o)
    }
}
