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

    /// The scanner behind the public calls: checking (`value`, `check`,
    /// `object`, `array`, here), unchecked skipping (JSONSkim+Shallow.swift)
    /// and the tokens both read (JSONSkim+Tokens.swift).
    struct Reader {
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
            var noSiblings = SiblingMembers<SkimmedMember>(kept: false)
            return object(depth: depth, levels: levels, members: &members, siblings: &noSiblings)
        }

        /// `object`, passing over a member that repeats the byte text of the
        /// previous sibling's member at the same place (`SiblingMembers`).
        mutating func object(depth: Int, levels: Int, members: inout [Member]?,
                             siblings: inout SiblingMembers<SkimmedMember>) -> (canonical: Bool, count: Int)? {
            guard peek == UInt8(ascii: "{") else { return nil }
            i += 1
            var canonical = !skipSpace()
            if peek == UInt8(ascii: "}") { i += 1; return (canonical, 0) }
            var previousKey: Range<Int>? = nil
            var count = 0
            while true {
                let keyStart = i
                let earlier = siblings.previous
                let repeated = count < earlier.count ? repeated(earlier, from: count) : (run: 0, sameKey: false)
                if repeated.run > 0 {
                    // The same bytes as valid, canonical members in canonical order: the same members.
                    let passed = passRun(repeated.run, of: earlier, from: count, into: &siblings)
                    if canonical, let previous = previousKey, !precedes(previous, passed.first.key) { canonical = false }
                    previousKey = passed.last.key
                    count += repeated.run - 1
                } else {
                    let keyBytes: Range<Int>
                    var escaped = false
                    if repeated.sameKey {
                        // The key of the member before at this place, canonical: only the value is read.
                        keyBytes = earlier[count].key.shifted(by: keyStart - earlier[count].text.lowerBound)
                        i = keyBytes.upperBound + 2
                    } else {
                        guard peek == UInt8(ascii: "\""), let key = string() else { return nil }
                        keyBytes = (keyStart + 1)..<(i - 1)
                        // An escaped key is left to the parser's path.
                        if !key.canonical || key.escaped { canonical = false }
                        escaped = key.escaped
                        if skipSpace() { canonical = false }
                        guard peek == UInt8(ascii: ":") else { return nil }
                        i += 1
                    }
                    // Canonical keys are strictly increasing by their bytes.
                    if canonical, let previous = previousKey, !precedes(previous, keyBytes) { canonical = false }
                    previousKey = keyBytes
                    if skipSpace() { canonical = false }
                    guard let child = child(depth: depth + 1, levels: levels - 1, collect: members != nil) else { return nil }
                    if !child.canonical { canonical = false }
                    if let node = child.node {
                        members?.append(Member(key: keyName(keyStart, keyBytes, escaped: escaped), text: keyStart..<i,
                                               node: node))
                    }
                    siblings.record(SkimmedMember(text: keyStart..<i, key: keyBytes))
                }
                count += 1
                guard let closed = next(closing: UInt8(ascii: "}"), canonical: &canonical) else { return nil }
                if closed { return (canonical, count) }
            }
        }

        /// Collects elements (as nodes `levels - 1` deep) when `elements` is not nil.
        mutating func array(depth: Int, levels: Int, elements: inout [Node]?) -> (canonical: Bool, count: Int)? {
            guard peek == UInt8(ascii: "[") else { return nil }
            i += 1
            var canonical = !skipSpace()
            if peek == UInt8(ascii: "]") { i += 1; return (canonical, 0) }
            var count = 0
            var siblings = SiblingMembers<SkimmedMember>(kept: true)
            while true {
                let elementCanonical: Bool
                if elements == nil, peek == UInt8(ascii: "{") {
                    // List entries repeat most of their members: each is compared with the one before.
                    guard depth + 1 < JSONSkim.maximumDepth else { return nil }
                    var none: [Member]? = nil
                    siblings.startObject()
                    guard let checked = object(depth: depth + 1, levels: 0, members: &none, siblings: &siblings) else {
                        return nil
                    }
                    siblings.endObject(keep: checked.canonical)
                    elementCanonical = checked.canonical
                } else {
                    guard let child = child(depth: depth + 1, levels: levels - 1, collect: elements != nil) else { return nil }
                    if let node = child.node { elements?.append(node) }
                    elementCanonical = child.canonical
                }
                if !elementCanonical { canonical = false }
                count += 1
                guard let closed = next(closing: UInt8(ascii: "]"), canonical: &canonical) else { return nil }
                if closed { return (canonical, count) }
            }
        }

        /// A member's or element's value: checked, and collected as a node
        /// `levels` deep when `collect`; nil when refused.
        mutating func child(depth: Int, levels: Int, collect: Bool) -> (canonical: Bool, node: Node?)? {
            if collect {
                guard let node = value(depth: depth, levels: levels) else { return nil }
                return (node.isCanonical, node)
            }
            guard let checked = check(depth: depth) else { return nil }
            return (checked.canonical, nil)
        }

        /// After a member or element: `,` (false, more follow) or `closing`
        /// (true); nil for anything else. White space clears `canonical`.
        mutating func next(closing: UInt8, canonical: inout Bool) -> Bool? {
            if skipSpace() { canonical = false }
            switch peek {
            case UInt8(ascii: ","):
                i += 1
                if skipSpace() { canonical = false }
                return false
            case closing:
                i += 1
                return true
            default: return nil
            }
        }

        /// A key's name: its bytes, or the parser's reading of an escaped one.
        func keyName(_ keyStart: Int, _ keyBytes: Range<Int>, escaped: Bool) -> String {
            escaped ? unescapedKey(keyStart) : String(decoding: UnsafeBufferPointer(rebasing: bytes[keyBytes]), as: UTF8.self)
        }
    }
}
