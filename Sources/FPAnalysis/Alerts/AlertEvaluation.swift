/// Evaluates rules over the stored documents in time order. Everything is
/// derived from the documents each time (no state): the same store and the
/// same `now` give the same alerts, whichever peer evaluates.
///
/// A figure's series is its values in time order; a run of values that cross
/// the limit raises an alert once it has lasted the hold time. A value stands
/// until the next one: a run lasts from its first value to the value that
/// ends it (`until`), or to `now` while it still crosses.
package enum AlertEvaluation {
    package static let valuesKept = 20

    package static func evaluate(_ rules: [AlertRule], _ documents: [AlertFacts], now: Int64) -> [Alert] {
        let ordered = documents.sorted { $0.at != $1.at ? $0.at < $1.at : $0.id < $1.id }
        return rules.flatMap { rule in
            rule.figure == .silence ? silence(rule, ordered, now: now) : crossings(rule, ordered, now: now)
        }.sorted { $0.since != $1.since ? $0.since < $1.since : $0.key < $1.key }
    }

    /// Each subject's series of values, in time order.
    static func series(_ rule: AlertRule, _ documents: [AlertFacts]) -> [(subject: String, values: [AlertValue])] {
        var bySubject: [String: [AlertValue]] = [:]
        var order: [String] = []
        func add(_ subject: String, _ v: AlertValue) {
            if bySubject[subject] == nil { order.append(subject) }
            bySubject[subject, default: []].append(v)
        }
        for d in documents {
            switch rule.figure {
            case .download, .upload, .rtt, .loss, .jitter:
                if case .map(let id) = rule.scope, d.map != id { continue }
                for p in d.probes.sorted(by: { $0.at < $1.at }) {
                    if case .link(let name) = rule.scope, p.interface != name && p.ssid != name { continue }
                    if let value = p.figures[rule.figure] { add(rule.scope.description, AlertValue(at: p.at, value: value, document: d.id)) }
                }
            case .rssi:
                guard case .beacon(let mac) = rule.scope, let median = d.beacons[mac]?.medianRSSI else { continue }
                add(rule.scope.description, AlertValue(at: d.at, value: median, document: d.id))
            case .coverage:
                if case .map(let id) = rule.scope, d.map != id { continue }
                guard let cell = d.cell, let map = d.map else { continue }
                add("\(map) cell (\(cell.x), \(cell.y))", AlertValue(at: d.at, value: Double(cell.beacons), document: d.id))
            case .silence:
                continue
            }
        }
        return order.map { ($0, bySubject[$0]!.sorted { $0.at < $1.at }) }
    }

    static func crossings(_ rule: AlertRule, _ documents: [AlertFacts], now: Int64) -> [Alert] {
        var alerts: [Alert] = []
        for (subject, values) in series(rule, documents) {
            var run: [AlertValue] = []
            func close(until: Int64?) {
                defer { run = [] }
                guard let first = run.first else { return }
                let raisedAt = first.at + rule.holdMs
                // The last crossing value stands until the value that ends the run (or until now).
                if let until { guard raisedAt < until else { return } } else { guard max(now, run.last!.at) >= raisedAt else { return } }
                alerts.append(alert(rule, subject, since: raisedAt, until: until, run: run))
            }
            for v in values {
                if rule.comparison.crosses(v.value, rule.limit) { run.append(v) } else if !run.isEmpty { close(until: v.at) }
            }
            close(until: nil)
        }
        return alerts
    }

    static func alert(_ rule: AlertRule, _ subject: String, since: Int64, until: Int64?, run: [AlertValue]) -> Alert {
        let raising = run.filter { $0.at <= since }
        let shown = Array((raising.isEmpty ? Array(run.prefix(1)) : raising).suffix(valuesKept))
        let above = rule.comparison == .above || rule.comparison == .aboveOrAt
        let worst = above ? run.map(\.value).max() : run.map(\.value).min()
        return Alert(rule: rule, subject: subject, since: since, until: until, values: shown, worst: worst)
    }

    /// A beacon not heard for longer than the limit (plus the hold): from the
    /// last report before the gap to the next one, or to now. A beacon never
    /// heard is silent from the first stored document on.
    static func silence(_ rule: AlertRule, _ documents: [AlertFacts], now: Int64) -> [Alert] {
        guard case .beacon(let mac) = rule.scope, let first = documents.first else { return [] }
        var heard: [(at: Int64, document: String)] = []
        for d in documents { for t in d.beacons[mac]?.heard ?? [] { heard.append((t, d.id)) } }
        heard.sort { $0.at < $1.at }
        let wait = Int64(rule.limit) + rule.holdMs
        let subject = rule.scope.description
        guard !heard.isEmpty else {
            let since = first.at + wait
            guard rule.comparison.crosses(Double(now - first.at), rule.limit + Double(rule.holdMs)) else { return [] }
            return [Alert(rule: rule, subject: subject, since: since, until: nil, values: [], worst: Double(now - first.at))]
        }
        var alerts: [Alert] = []
        for (i, last) in heard.enumerated() {
            let next = i + 1 < heard.count ? heard[i + 1].at : nil
            let gap = (next ?? now) - last.at
            guard rule.comparison.crosses(Double(gap), rule.limit + Double(rule.holdMs)) else { continue }
            let value = AlertValue(at: last.at, value: Double(gap), document: last.document)
            alerts.append(Alert(rule: rule, subject: subject, since: last.at + wait, until: next, values: [value], worst: Double(gap)))
        }
        return alerts
    }
}
