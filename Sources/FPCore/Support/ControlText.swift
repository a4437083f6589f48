/// Text from outside (a login name, a document id, an owner) shown on a
/// terminal or written to a log line: control characters are written as
/// escapes, so a name holding "\n" cannot start a forged line of its own
/// and one holding ESC cannot drive the terminal.
public enum ControlText {
    /// `text` with C0 controls, DEL and C1 controls escaped (`\n`, `\r`,
    /// `\t`, else `\u001b`-style); a backslash is left as it is.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
