/// Why bytes could not be parsed, with the byte offset where it went wrong.
///
/// Parsers throw this (typed) instead of returning nil so a caller can count
/// and report a malformed event precisely, then skip it.
@usableFromInline
package enum HCIParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the structure needs.
    case truncated(what: String, offset: Int, needed: Int, available: Int)
    /// A field holds a value the specification does not allow.
    case invalid(what: String, offset: Int, value: Int)
    /// Bytes left over after a structure that must fill its container exactly.
    case trailing(what: String, offset: Int, count: Int)

    @usableFromInline package var description: String {
        switch self {
        case let .truncated(what, offset, needed, available):
            "\(what) truncated at byte \(offset): needs \(needed) bytes, \(available) present"
        case let .invalid(what, offset, value):
            "invalid \(what) at byte \(offset): 0x\(String(value, radix: 16))"
        case let .trailing(what, offset, count):
            "\(count) unexpected bytes after \(what) at byte \(offset)"
        }
    }
}

/// A read position over a byte buffer; every read is bounds-checked.
///
/// Offsets in errors are relative to the start of the buffer the cursor was
/// made for, so they point into the event a user can see in a hex dump.
@usableFromInline
struct ByteCursor {
    @usableFromInline let bytes: ArraySlice<UInt8>
    @usableFromInline var position: Int  // absolute index into `bytes`
    @usableFromInline let origin: Int    // what offset 0 means in errors

    @inlinable init(_ bytes: ArraySlice<UInt8>, origin: Int? = nil) {
        self.bytes = bytes
        position = bytes.startIndex
        self.origin = origin ?? bytes.startIndex
    }

    @inlinable var offset: Int { position - origin }
    @inlinable var remaining: Int { bytes.endIndex - position }

    @inlinable mutating func need(_ n: Int, _ what: String) throws(HCIParseError) {
        if remaining < n { throw .truncated(what: what, offset: offset, needed: n, available: remaining) }
    }

    @inlinable mutating func u8(_ what: String) throws(HCIParseError) -> UInt8 {
        try need(1, what)
        let v = bytes[position]
        position += 1
        return v
    }

    @inlinable mutating func u16le(_ what: String) throws(HCIParseError) -> UInt16 {
        try need(2, what)
        let v = UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
        position += 2
        return v
    }

    @inlinable mutating func take(_ n: Int, _ what: String) throws(HCIParseError) -> ArraySlice<UInt8> {
        try need(n, what)
        let s = bytes[position..<(position + n)]
        position += n
        return s
    }
}
