import FPCore

/// JSON for files people read and edit (the user's app config and
/// scenarios): two-space indents, and an array or object that fits in
/// `lineWidth` on one line (a point, a list of points), as the shipped files are written.
package enum PrettyJSON {
    package static func text(_ value: JSONValue, lineWidth: Int = 100) -> String {
        var out = ""
        write(value, indent: 0, lineWidth: lineWidth, into: &out)
        return out + "\n"
    }

    private static func write(_ value: JSONValue, indent: Int, lineWidth: Int, into out: inout String) {
        let compact = CanonicalJSON.string(value)
        let nested: [(key: String?, value: JSONValue)]
        let (open, close): (String, String)
        switch value {
        case .array(let items) where !items.isEmpty:
            nested = items.map { (nil, $0) }
            (open, close) = ("[", "]")
        case .object(let object) where !object.members.isEmpty:
            nested = object.members.map { ($0.key, $0.value) }
            (open, close) = ("{", "}")
        default:
            out += compact
            return
        }
        if indent + compact.count <= lineWidth {
            out += spaced(compact, value)
            return
        }
        let inner = String(repeating: " ", count: indent + 2)
        out += open + "\n"
        for (i, item) in nested.enumerated() {
            out += inner
            if let key = item.key { out += CanonicalJSON.string(.string(key)) + ": " }
            write(item.value, indent: indent + 2, lineWidth: lineWidth, into: &out)
            out += i == nested.count - 1 ? "\n" : ",\n"
        }
        out += String(repeating: " ", count: indent) + close
    }

    /// A one-line container with a space after each `,` and `:` between members (not inside strings).
    private static func spaced(_ compact: String, _ value: JSONValue) -> String {
        var out = "", inString = false, escaped = false
        for c in compact {
            out.append(c)
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
            } else if c == "\"" {
                inString = true
            } else if c == "," || c == ":" {
                out.append(" ")
            }
        }
        return out
    }
}
