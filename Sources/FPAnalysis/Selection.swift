/// Which fingerprints a side of a train/test evaluation takes: terms that
/// must all hold, each `key=value` with alternatives `a|b`. Keys: `map`,
/// `session`, `dataset`, `floor`, any tag (`month`, `campaign`, `set`,
/// a table's own columns); `since`/`until` bound the time (`createdAt`,
/// until exclusive), given here as ms. Values equal as text, or as whole
/// numbers (`month=1` is `month=01`).
package struct Selection: Sendable, Equatable {
    package struct Term: Sendable, Equatable {
        package var key: String
        package var values: [String]
        package init(key: String, values: [String]) {
            self.key = key
            self.values = values
        }
    }

    package var terms: [Term]
    package var sinceMs: Int64?
    package var untilMs: Int64?

    package init(terms: [Term] = [], sinceMs: Int64? = nil, untilMs: Int64? = nil) {
        self.terms = terms
        self.sinceMs = sinceMs
        self.untilMs = untilMs
    }

    package func matches(_ fp: Fingerprint) -> Bool {
        if let sinceMs, fp.labels.createdAtMs < sinceMs { return false }
        if let untilMs, fp.labels.createdAtMs >= untilMs { return false }
        return terms.allSatisfy { term in
            guard let value = Self.value(of: fp, term.key) else { return false }
            return term.values.contains { Self.same($0, value) }
        }
    }

    /// A fingerprint's value for a key: the reserved keys, else its tag.
    package static func value(of fp: Fingerprint, _ key: String) -> String? {
        switch key {
        case "map": fp.level
        case "session": fp.labels.sessionId
        case "dataset": fp.labels.dataset
        case "floor": fp.labels.floor.map(String.init)
        default: fp.labels.tag(key)
        }
    }

    package static func same(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        guard let x = Int(a), let y = Int(b) else { return false }
        return x == y
    }

    /// Group values in their natural order: numerically when all are whole numbers, else as text.
    package static func ordered(_ values: Set<String>) -> [String] {
        let numbers = values.compactMap { v in Int(v).map { (v, $0) } }
        guard numbers.count == values.count else { return values.sorted() }
        return numbers.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.map(\.0)
    }
}
