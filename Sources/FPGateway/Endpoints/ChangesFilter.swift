import FPCore

/// `_changes` filters this gateway applies: `_doc_ids` and `_selector` with
/// equality selectors. Any other filter is refused (400), never ignored:
/// a silent full feed would copy documents the client did not ask for.
enum ChangesFilter {
    case docIDs(Set<String>)
    case selector(EqualitySelector)

    /// Whether a change passes; `body` reads the winning revision's body
    /// (only selectors need it).
    func admits(_ entry: ChangeEntry, body: () throws -> JSONValue?) rethrows -> Bool {
        switch self {
        case .docIDs(let ids): return ids.contains(entry.id)
        case .selector(let selector):
            guard let body = try body() else { return false }
            return selector.matches(id: entry.id, body: body)
        }
    }
}

/// A Mango selector made only of equalities: `{"type": "scan"}`,
/// `{"map.level": {"$eq": "J1NP"}}`, `{"$and": [...]}`. Dotted names reach
/// into nested objects, as in CouchDB.
struct EqualitySelector {
    var conditions: [(path: [String], value: JSONValue)]

    init(_ selector: JSONValue) throws(CouchError) {
        guard let object = selector.objectValue else { throw CouchError.badRequest("selector must be a JSON object") }
        conditions = []
        try add(object)
    }

    private mutating func add(_ object: JSONObject) throws(CouchError) {
        for (field, condition) in object {
            if field == "$and" {
                guard let parts = condition.arrayValue else { throw CouchError.badRequest("$and must be an array of selectors") }
                for part in parts {
                    guard let inner = part.objectValue else { throw CouchError.badRequest("$and must list selector objects") }
                    try add(inner)
                }
                continue
            }
            if field.hasPrefix("$") { throw Self.unsupported(field) }
            let path = field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if let operators = condition.objectValue, let first = operators.keys.first, first.hasPrefix("$") {
                guard operators.count == 1, first == "$eq", let value = operators["$eq"] else {
                    throw Self.unsupported(operators.keys.first { $0 != "$eq" } ?? first)
                }
                conditions.append((path, value))
            } else {
                conditions.append((path, condition))
            }
        }
    }

    private static func unsupported(_ name: String) -> CouchError {
        .badRequest("selector operator \(name) is not supported here (only equality, $eq and $and)")
    }

    func matches(id: String, body: JSONValue) -> Bool {
        conditions.allSatisfy { condition in
            if condition.path == ["_id"] { return condition.value == .string(id) }
            var value: JSONValue? = body
            for key in condition.path { value = value?[key] }
            guard let value else { return false }
            return Self.equal(value, condition.value)
        }
    }

    /// Numbers compare by value (`1` equals `1.0`), everything else as JSON.
    private static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }
}
