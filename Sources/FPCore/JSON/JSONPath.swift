/// Where a value sits in a JSON document, written as the path error messages
/// show (`$.maps[1].id`, `$["odd key"]`). Every reader that validates a file
/// by walking its `JSONValue` (app config, settings, radio environments)
/// builds its paths and names found values here, so they read alike.
public enum JSONPath {
    public static let root = "$"

    /// `path.key`, or `path["key"]` when the key is not a plain identifier.
    public static func child(_ path: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return plain ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }

    public static func element(_ path: String, _ index: Int) -> String { "\(path)[\(index)]" }

    /// The JSON type of a value as messages name it ("found string").
    public static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double, .numberText: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A short rendering of a scalar for messages ("found -3", "found \"ftp://x\"").
    public static func shown(_ value: JSONValue) -> String {
        switch value {
        case .int(let i): String(i)
        case .numberText(let text): text
        case .double(let d): d.isFinite ? String(d) : (d.isNaN ? "NaN" : (d > 0 ? "infinity" : "-infinity"))
        case .string(let s): "\"\(s.count > 60 ? String(s.prefix(60)) + "…" : s)\""
        default: typeName(value)
        }
    }
}

/// A JSON value and its path, for readers whose every error names the exact place.
public struct JSONNode: Sendable {
    public let value: JSONValue
    public let path: String

    public init(_ value: JSONValue, at path: String = JSONPath.root) {
        self.value = value
        self.path = path
    }

    /// The member `key` of an object (nil when absent or not an object).
    public func member(_ key: String) -> JSONNode? {
        value[key].map { JSONNode($0, at: JSONPath.child(path, key)) }
    }

    /// The path of member `key`, present or not (for "missing" errors).
    public func path(of key: String) -> String { JSONPath.child(path, key) }

    /// The elements of an array with their paths; nil when not an array.
    public var elements: [JSONNode]? {
        guard case .array(let items) = value else { return nil }
        return items.enumerated().map { JSONNode($0.element, at: JSONPath.element(path, $0.offset)) }
    }
}
