/// Unchecked scanning: members and element counts of text whose values
/// were checked already (or are checked one by one by the caller).
extension JSONSkim.Reader {
    mutating func shallowMembers() -> [JSONSkim.Member]? {
        guard let empty = enter(UInt8(ascii: "{"), closing: UInt8(ascii: "}")) else { return nil }
        var members: [JSONSkim.Member] = []
        if empty { return atEnd() ? members : nil }
        while true {
            let keyStart = i
            guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
            let keyBytes = (keyStart + 1)..<(i - 1)
            skipSpace()
            guard peek == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            let valueStart = i
            guard skipValue() else { return nil }
            let unchecked = JSONSkim.Node(value: valueStart..<i, isCanonical: false)
            members.append(JSONSkim.Member(key: keyName(keyStart, keyBytes, escaped: key.escaped), text: keyStart..<i,
                                           node: unchecked))
            var ignored = false
            guard let closed = next(closing: UInt8(ascii: "}"), canonical: &ignored) else { return nil }
            if closed { return atEnd() ? members : nil }
        }
    }

    mutating func shallowCount() -> Int? {
        guard let empty = enter(UInt8(ascii: "["), closing: UInt8(ascii: "]")) else { return nil }
        if empty { return 0 }
        var count = 0
        while true {
            guard skipValue() else { return nil }
            count += 1
            var ignored = false
            guard let closed = next(closing: UInt8(ascii: "]"), canonical: &ignored) else { return nil }
            if closed { return count }
        }
    }

    /// Passes over one value without checking it: strings to their
    /// closing quote, containers to their matching bracket, anything else
    /// to the next delimiter. False at the end of the text.
    mutating func skipValue() -> Bool {
        guard let c = peek else { return false }
        switch c {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < end {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                default: break
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < end {
                let b = bytes[i]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b <= 0x20 { break }
                i += 1
            }
            return i > start
        }
    }

    mutating func skipString() -> Bool {
        i += 1
        while i < end {
            let plain = plainBytesAhead()
            i += plain
            if plain == 8 { continue }
            switch bytes[i] {
            case UInt8(ascii: "\""): i += 1; return true
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return false
    }
}
