/// Walks over JSON text that allocate nothing, for readers that pick a few
/// values out of many documents (eval reads x, y, level and the samples of
/// thousands of stored bodies). Like `shallowMembers`, values are skipped
/// unchecked: for text known to be JSON (a stored canonical body). Each
/// answers false when the text is not what it expects, and callers then take
/// the parser's path.
extension JSONSkim {
    /// Calls `body` with each member of the object filling `range` (white
    /// space around it allowed): the bytes of its key between the quotes, and
    /// its value's range. False when the text is not one object, a key has an
    /// escape (its bytes would not be its text), or `body` answers false.
    public static func forEachMember(in bytes: UnsafeBufferPointer<UInt8>, of range: Range<Int>,
                                     _ body: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Bool) -> Bool {
        var reader = Reader(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        guard let empty = reader.enter(UInt8(ascii: "{"), closing: UInt8(ascii: "}")) else { return false }
        if empty { return reader.atEnd() }
        while true {
            let keyStart = reader.i + 1
            guard reader.peek == UInt8(ascii: "\""), let key = reader.string(), !key.escaped else { return false }
            let keyBytes = UnsafeBufferPointer(rebasing: bytes[keyStart..<(reader.i - 1)])
            reader.skipSpace()
            guard reader.peek == UInt8(ascii: ":") else { return false }
            reader.i += 1
            reader.skipSpace()
            let valueStart = reader.i
            guard reader.skipValue(), body(keyBytes, valueStart..<reader.i) else { return false }
            var ignored = false
            guard let closed = reader.next(closing: UInt8(ascii: "}"), canonical: &ignored) else { return false }
            if closed { return reader.atEnd() }
        }
    }

    /// Calls `body` with the range of each element of the array filling
    /// `range`. False when the text is not one array or `body` answers false.
    public static func forEachElement(in bytes: UnsafeBufferPointer<UInt8>, of range: Range<Int>,
                                      _ body: (Range<Int>) -> Bool) -> Bool {
        var reader = Reader(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        guard let empty = reader.enter(UInt8(ascii: "["), closing: UInt8(ascii: "]")) else { return false }
        if empty { return reader.atEnd() }
        while true {
            let start = reader.i
            guard reader.skipValue(), body(start..<reader.i) else { return false }
            var ignored = false
            guard let closed = reader.next(closing: UInt8(ascii: "]"), canonical: &ignored) else { return false }
            if closed { return reader.atEnd() }
        }
    }

    /// Whether `range` holds exactly one value this skim accepts, checked
    /// as `value(in:)` checks it (white space around it allowed).
    public static func isValue(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Bool {
        var reader = Reader(bytes: bytes, i: range.lowerBound, end: range.upperBound)
        reader.skipSpace()
        guard reader.value(depth: 0, levels: 0) != nil else { return false }
        reader.skipSpace()
        return reader.i == range.upperBound
    }
}

extension JSONSkim.Reader {
    /// Only white space is left before the end.
    mutating func atEnd() -> Bool {
        skipSpace()
        return i == end
    }

    /// Steps into the container `open` begins (white space before it and
    /// after it passed): nil when the text holds no such container here, true
    /// when it is empty (its `closing` bracket passed too), false when a
    /// first item follows.
    mutating func enter(_ open: UInt8, closing: UInt8) -> Bool? {
        skipSpace()
        guard peek == open else { return nil }
        i += 1
        skipSpace()
        guard peek == closing else { return false }
        i += 1
        return true
    }
}
