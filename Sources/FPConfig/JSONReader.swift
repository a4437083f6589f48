import Foundation
import FPCore

/// Reads typed values out of a parsed `JSONValue`, naming the exact JSON path
/// (`$.maps[1].id`, written by FPCore's `JSONPath`) of anything missing or
/// wrong. Validation walks the value tree itself rather than going through
/// Codable, whose messages name coding keys, not paths, and cannot say "at
/// least 2 points".
struct JSONReader {
    let source: String

    func error(_ path: String, _ problem: String) -> ConfigError {
        ConfigError(source: source, path: path, problem)
    }

    func object(_ value: JSONValue, at path: String) throws(ConfigError) -> JSONObject {
        guard case .object(let o) = value else { throw error(path, "expected an object, found \(JSONPath.typeName(value))") }
        return o
    }

    func array(_ value: JSONValue, at path: String) throws(ConfigError) -> [JSONValue] {
        guard case .array(let a) = value else { throw error(path, "expected an array, found \(JSONPath.typeName(value))") }
        return a
    }

    /// The value of a required key, or an error that says what was expected.
    func required(_ object: JSONObject, _ key: String, at path: String, expected: String) throws(ConfigError) -> JSONValue {
        if let value = object[key] { return value }
        // Keys are case-sensitive; point out the near miss ("x" for "X").
        if let near = object.keys.first(where: { $0.lowercased() == key.lowercased() }) {
            throw error(JSONPath.child(path, key), "missing (expected \(expected); found key \"\(near)\", keys are case-sensitive)")
        }
        throw error(JSONPath.child(path, key), "missing (expected \(expected))")
    }

    func string(_ object: JSONObject, _ key: String, at path: String, nonEmpty: Bool = false) throws(ConfigError) -> String {
        let value = try required(object, key, at: path, expected: "a string")
        guard case .string(let s) = value else {
            throw error(JSONPath.child(path, key), "expected a string, found \(JSONPath.typeName(value))")
        }
        if nonEmpty, s.trimmingCharacters(in: .whitespaces).isEmpty {
            throw error(JSONPath.child(path, key), "must not be empty")
        }
        return s
    }

    /// A required http(s) URL (gateway and auth endpoints).
    func httpURL(_ object: JSONObject, _ key: String, at path: String) throws(ConfigError) -> String {
        let value = try required(object, key, at: path, expected: "an http(s) URL")
        guard case .string(let s) = value else {
            throw error(JSONPath.child(path, key), "expected an http(s) URL, found \(JSONPath.typeName(value))")
        }
        guard ConfigLocation.isHTTPURL(s) else {
            throw error(JSONPath.child(path, key), "expected an http(s) URL, found \(JSONPath.shown(value))")
        }
        return s
    }

    /// A required finite number; ints and floats alike.
    func number(_ object: JSONObject, _ key: String, at path: String) throws(ConfigError) -> Double {
        let value = try required(object, key, at: path, expected: "a number")
        guard let d = value.doubleValue else {
            throw error(JSONPath.child(path, key), "expected a number, found \(JSONPath.typeName(value))")
        }
        guard d.isFinite else { throw error(JSONPath.child(path, key), "expected a finite number, found \(JSONPath.shown(value))") }
        return d
    }

    func positiveNumber(_ object: JSONObject, _ key: String, at path: String) throws(ConfigError) -> Double {
        let d = try number(object, key, at: path)
        guard d > 0 else { throw error(JSONPath.child(path, key), "expected a positive number, found \(JSONPath.shown(object[key] ?? .null))") }
        return d
    }

    /// A whole number (1 and 1.0 both count) within a range.
    func integer(_ value: JSONValue, at path: String, in range: ClosedRange<Int>? = nil) throws(ConfigError) -> Int {
        guard value.doubleValue != nil else { throw error(path, "expected a whole number, found \(JSONPath.typeName(value))") }
        guard let i = value.intValue, let n = Int(exactly: i) else {
            throw error(path, "expected a whole number, found \(JSONPath.shown(value))")
        }
        if let range, !range.contains(n) {
            throw error(path, "\(n) is outside the allowed range \(range.lowerBound)…\(range.upperBound)")
        }
        return n
    }
}
