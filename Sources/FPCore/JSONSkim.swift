/// Reads JSON text without building values: where each value ends, and
/// whether its text is canonical, i.e. exactly what `CanonicalJSON.write`
/// makes of what `JSONParser` reads from it. Replication uses it to store a
/// received document as it came, with no parse and no rewrite, when its text
/// is canonical (fprint's own peers send canonical text).
///
/// It accepts a subset of what the parser accepts and answers nil for
/// anything else (broken text, lone surrogates, nesting deeper than
/// `maximumDepth`); callers then take the parser's path, which gives the
/// precise error. Whatever it accepts, the parser accepts too
/// (`JSONSkimTests` checks this on mutated documents).
public struct JSONSkim: Sendable {
    public let bytes: [UInt8]

    /// Shallower than the parser's limit, so a value accepted here is never refused there.
    static let maximumDepth = JSONParser.maximumDepth - 8

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// One value: where it is, whether its text is canonical, and its
    /// children when they were collected (`value(in:levels:)`).
    public struct Node: Sendable {
        public var value: Range<Int>
        public var isCanonical: Bool
        /// How many members or elements a container has (0 for a scalar);
        /// nil when not checked (`shallowMembers`).
        public var count: Int?
        /// An object's members, when collected.
        public var members: [Member]?
        /// An array's elements, when collected.
        public var elements: [Node]?

        public init(value: Range<Int>, isCanonical: Bool, count: Int? = nil, members: [Member]? = nil,
                    elements: [Node]? = nil) {
            self.value = value
            self.isCanonical = isCanonical
            self.count = count
            self.members = members
            self.elements = elements
        }

        /// The member named `key`, if collected and present.
        public subscript(key: String) -> Node? { members?.first { $0.key == key }?.node }
    }

    public struct Member: Sendable {
        public var key: String
        /// From the key's opening quote to the end of the value.
        public var text: Range<Int>
        public var node: Node
        public var value: Range<Int> { node.value }
        public var isCanonical: Bool { node.isCanonical }

        public init(key: String, text: Range<Int>, node: Node) {
            self.key = key
            self.text = text
            self.node = node
        }
    }

    public typealias Element = Node

    /// The one value filling `range` (white space around it allowed),
    /// checked in one pass, with the children of containers collected
    /// `levels` deep (1: the members or elements of this value).
    public func value(in range: Range<Int>, levels: Int = 0) -> Node? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, i: range.lowerBound, end: range.upperBound)
            reader.skipSpace()
            guard let node = reader.value(depth: 0, levels: levels) else { return nil }
            reader.skipSpace()
            guard reader.i == range.upperBound else { return nil }
            return node
        }
    }

    /// The members of the object at `range` (a value range from this skim).
    public func members(of range: Range<Int>) -> [Member]? {
        guard bytes.indices.contains(range.lowerBound), bytes[range.lowerBound] == UInt8(ascii: "{") else { return nil }
        return value(in: range, levels: 1)?.members
    }

    /// The members of the object at `range`, checking only the object's own
    /// punctuation and keys: values are skipped unchecked (`isCanonical`
    /// false). For values checked already (an element this skim accepted,
    /// text known canonical), or checked one by one by the caller.
    public func shallowMembers(of range: Range<Int>) -> [Member]? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, i: range.lowerBound, end: range.upperBound)
            return reader.shallowMembers()
        }
    }

    /// How many elements the array at `range` has, skipping them unchecked
    /// (as `shallowMembers`); nil when it is not an array.
    public func shallowCount(of range: Range<Int>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, i: range.lowerBound, end: range.upperBound)
            return reader.shallowCount()
        }
    }

    /// The elements of the array at `range` (a value range from this skim).
    public func elements(of range: Range<Int>) -> [Node]? {
        guard bytes.indices.contains(range.lowerBound), bytes[range.lowerBound] == UInt8(ascii: "[") else { return nil }
        return value(in: range, levels: 1)?.elements
    }

    /// The parsed value at `range` (for the few small members a caller needs).
    public func parse(_ range: Range<Int>) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(bytes[range]))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i: Int
        let end: Int

        var peek: UInt8? { i < end ? bytes[i] : nil }

        /// Skips white space; true when there was some (never canonical).
        @discardableResult
        mutating func skipSpace() -> Bool {
            let start = i
            while i < end, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            return i != start
        }

        /// One value from `i`, nil when refused; children collected `levels` deep.
        mutating func value(depth: Int, levels: Int) -> Node? {
            let start = i
            guard levels > 0, let c = peek, c == UInt8(ascii: "{") || c == UInt8(ascii: "[") else {
                guard let checked = check(depth: depth) else { return nil }
                return Node(value: start..<i, isCanonical: checked.canonical, count: checked.count)
            }
            guard depth < JSONSkim.maximumDepth else { return nil }
            if c == UInt8(ascii: "{") {
                var members: [Member]? = []
                guard let checked = object(depth: depth, levels: levels, members: &members) else { return nil }
                return Node(value: start..<i, isCanonical: checked.canonical, count: checked.count, members: members)
            }
            var elements: [Node]? = []
            guard let checked = array(depth: depth, levels: levels, elements: &elements) else { return nil }
            return Node(value: start..<i, isCanonical: checked.canonical, count: checked.count, elements: elements)
        }

        /// One value from `i`, collecting nothing: whether it is canonical,
        /// and how many members or elements it has (0 for a scalar).
        mutating func check(depth: Int) -> (canonical: Bool, count: Int)? {
            guard depth < JSONSkim.maximumDepth, let c = peek else { return nil }
            switch c {
            case UInt8(ascii: "{"):
                var none: [Member]? = nil
                return object(depth: depth, levels: 0, members: &none)
            case UInt8(ascii: "["):
                var none: [Node]? = nil
                return array(depth: depth, levels: 0, elements: &none)
            case UInt8(ascii: "\""): return string().map { ($0.canonical, 0) }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number() ? (true, 0) : nil
            case UInt8(ascii: "t"): return literal("true") ? (true, 0) : nil
            case UInt8(ascii: "f"): return literal("false") ? (true, 0) : nil
            case UInt8(ascii: "n"): return literal("null") ? (true, 0) : nil
            default: return nil
            }
        }

        /// Collects members (as nodes `levels - 1` deep) when `members` is not nil.
        mutating func object(depth: Int, levels: Int, members: inout [Member]?) -> (canonical: Bool, count: Int)? {
            guard peek == UInt8(ascii: "{") else { return nil }
            i += 1
            var canonical = !skipSpace()
            if peek == UInt8(ascii: "}") { i += 1; return (canonical, 0) }
            var previousKey: Range<Int>? = nil
            var count = 0
            while true {
                let keyStart = i
                guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                let keyBytes = (keyStart + 1)..<(i - 1)
                // Canonical keys are strictly increasing by their bytes; an escaped key is left to the parser's path.
                if !key.canonical || key.escaped { canonical = false }
                if canonical, let previous = previousKey, !precedes(previous, keyBytes) { canonical = false }
                previousKey = keyBytes
                if skipSpace() { canonical = false }
                guard peek == UInt8(ascii: ":") else { return nil }
                i += 1
                if skipSpace() { canonical = false }
                if members != nil {
                    guard let node = value(depth: depth + 1, levels: levels - 1) else { return nil }
                    if !node.isCanonical { canonical = false }
                    let name = key.escaped ? unescapedKey(keyStart)
                        : String(decoding: UnsafeBufferPointer(rebasing: bytes[keyBytes]), as: UTF8.self)
                    members?.append(Member(key: name, text: keyStart..<i, node: node))
                } else {
                    guard let checked = check(depth: depth + 1) else { return nil }
                    if !checked.canonical { canonical = false }
                }
                count += 1
                if skipSpace() { canonical = false }
                switch peek {
                case UInt8(ascii: ","):
                    i += 1
                    if skipSpace() { canonical = false }
                case UInt8(ascii: "}"):
                    i += 1
                    return (canonical, count)
                default: return nil
                }
            }
        }

        /// Collects elements (as nodes `levels - 1` deep) when `elements` is not nil.
        mutating func array(depth: Int, levels: Int, elements: inout [Node]?) -> (canonical: Bool, count: Int)? {
            guard peek == UInt8(ascii: "[") else { return nil }
            i += 1
            var canonical = !skipSpace()
            if peek == UInt8(ascii: "]") { i += 1; return (canonical, 0) }
            var count = 0
            while true {
                if elements != nil {
                    guard let node = value(depth: depth + 1, levels: levels - 1) else { return nil }
                    if !node.isCanonical { canonical = false }
                    elements?.append(node)
                } else {
                    guard let checked = check(depth: depth + 1) else { return nil }
                    if !checked.canonical { canonical = false }
                }
                count += 1
                if skipSpace() { canonical = false }
                switch peek {
                case UInt8(ascii: ","):
                    i += 1
                    if skipSpace() { canonical = false }
                case UInt8(ascii: "]"):
                    i += 1
                    return (canonical, count)
                default: return nil
                }
            }
        }

        mutating func shallowMembers() -> [Member]? {
            skipSpace()
            guard peek == UInt8(ascii: "{") else { return nil }
            i += 1
            skipSpace()
            var members: [Member] = []
            if peek == UInt8(ascii: "}") {
                i += 1
                skipSpace()
                return i == end ? members : nil
            }
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
                let name = key.escaped ? unescapedKey(keyStart)
                    : String(decoding: UnsafeBufferPointer(rebasing: bytes[keyBytes]), as: UTF8.self)
                members.append(Member(key: name, text: keyStart..<i, node: Node(value: valueStart..<i, isCanonical: false)))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","):
                    i += 1
                    skipSpace()
                case UInt8(ascii: "}"):
                    i += 1
                    skipSpace()
                    return i == end ? members : nil
                default: return nil
                }
            }
        }

        mutating func shallowCount() -> Int? {
            skipSpace()
            guard peek == UInt8(ascii: "[") else { return nil }
            i += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { return 0 }
            var count = 0
            while true {
                guard skipValue() else { return nil }
                count += 1
                skipSpace()
                switch peek {
                case UInt8(ascii: ","):
                    i += 1
                    skipSpace()
                case UInt8(ascii: "]"): return count
                default: return nil
                }
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
                switch bytes[i] {
                case UInt8(ascii: "\""): i += 1; return true
                case UInt8(ascii: "\\"): i += 2
                default: i += 1
                }
            }
            return false
        }

        /// The escaped key at `start`, decoded by the parser (rare: escaped keys).
        func unescapedKey(_ start: Int) -> String {
            var k = start + 1
            while bytes[k] != UInt8(ascii: "\"") { k += bytes[k] == UInt8(ascii: "\\") ? 2 : 1 }
            let text = Array(bytes[start...k])
            return (try? JSONParser.parse(text))?.stringValue ?? ""
        }

        /// Byte order of two keys, shorter prefix first (`JSONObject.precedes`).
        func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
            let n = min(a.count, b.count)
            for k in 0..<n where bytes[a.lowerBound + k] != bytes[b.lowerBound + k] {
                return bytes[a.lowerBound + k] < bytes[b.lowerBound + k]
            }
            return a.count < b.count
        }

        /// A string from its opening quote. Canonical escapes are the writer's
        /// own: `\"`, `\\`, `\b \f \n \r \t`, and `\u00xx` (lowercase) for the
        /// other control characters. nil for what the parser refuses.
        mutating func string() -> (canonical: Bool, escaped: Bool)? {
            i += 1
            var canonical = true, escaped = false
            while i < end {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") { i += 1; return (canonical, escaped) }
                if c < 0x20 { return nil }
                if c < 0x80 && c != UInt8(ascii: "\\") { i += 1; continue }
                if c >= 0x80 {
                    guard let length = utf8Sequence(at: i) else { return nil }
                    i += length
                    continue
                }
                // A backslash.
                escaped = true
                guard i + 1 < end else { return nil }
                let e = bytes[i + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                     UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "/"):
                    canonical = false
                    i += 2
                case UInt8(ascii: "u"):
                    guard let unit = hex4(at: i + 2) else { return nil }
                    if (0xD800...0xDBFF).contains(unit) {
                        // Only a high half followed by a low half makes a character.
                        guard i + 11 < end, bytes[i + 6] == UInt8(ascii: "\\"), bytes[i + 7] == UInt8(ascii: "u"),
                              let low = hex4(at: i + 8), (0xDC00...0xDFFF).contains(low) else { return nil }
                        canonical = false
                        i += 12
                        continue
                    }
                    if (0xDC00...0xDFFF).contains(unit) { return nil }
                    if !isWritersEscape(unit, at: i + 2) { canonical = false }
                    i += 6
                default: return nil
                }
            }
            return nil
        }

        /// Whether `\uXXXX` is how the writer spells this unit: a control
        /// character without a short escape, in lowercase hex.
        func isWritersEscape(_ unit: UInt32, at k: Int) -> Bool {
            guard unit < 0x20, ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(unit) else { return false }
            return !bytes[k..<(k + 4)].contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }
        }

        func hex4(at k: Int) -> UInt32? {
            guard k + 4 <= end else { return nil }
            var v: UInt32 = 0
            for b in bytes[k..<(k + 4)] {
                let d: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }

        /// The length of a well-formed UTF-8 sequence at `k` (RFC 3629), or nil.
        func utf8Sequence(at k: Int) -> Int? {
            let b0 = bytes[k]
            func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
                k + offset < end && range.contains(bytes[k + offset])
            }
            switch b0 {
            case 0xC2...0xDF: return continuation(1) ? 2 : nil
            case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
            case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
            case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil  // no surrogates
            case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
            case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
            case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
            default: return nil
            }
        }

        /// A number by the parser's grammar. Its text is always canonical: the
        /// parser keeps the text of any number whose value would be written
        /// otherwise. Out-of-range numbers are refused, as the parser does.
        mutating func number() -> Bool {
            let start = i
            if peek == UInt8(ascii: "-") { i += 1 }
            guard let first = peek, isDigit(first) else { return false }
            i += 1
            if first == UInt8(ascii: "0"), let next = peek, isDigit(next) { return false }
            skipDigits()
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard let d = peek, isDigit(d) else { return false }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard let d = peek, isDigit(d) else { return false }
                skipDigits()
            }
            let digits = i - start - (bytes[start] == UInt8(ascii: "-") ? 1 : 0)
            if integral && digits <= 18 { return true }
            let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            if integral, Int64(token) != nil { return true }
            return Double(token)?.isFinite ?? false
        }

        mutating func skipDigits() {
            while i < end && isDigit(bytes[i]) { i += 1 }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        mutating func literal(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard end - i >= n else { return false }
            let matches = word.withUTF8Buffer { expected in (0..<n).allSatisfy { bytes[i + $0] == expected[$0] } }
            if matches { i += n }
            return matches
        }
    }
}
