extension LegacyImport {
    /// One line of a JSON lines file, copied out of what was read. A line
    /// opening with a plain `_id` member, as `fprint export` writes every
    /// line, is held without that member (`{` and the rest): the shortcut
    /// (`contractDocument`) stores exactly that text as the body, and
    /// leaving the member out while copying saved copying a 223 KiB walk
    /// document a second time (3 % of an import's CPU). The converting path
    /// reads the line as it was (`text`).
    public struct Line: Sendable {
        public let number: Int
        /// The line, or, when `id` is set, the line without its `_id` member.
        let held: [UInt8]
        /// The value of the `_id` member left out; nil when none was.
        let id: String?

        public init(_ text: [UInt8], number: Int) {
            self = text.withUnsafeBufferPointer { Line(copying: $0, number: number) }
        }

        init(copying bytes: UnsafeBufferPointer<UInt8>, number: Int) {
            self.number = number
            guard let leading = Self.leadingID(bytes) else {
                held = Array(bytes)
                id = nil
                return
            }
            var rest = [UInt8]()
            rest.reserveCapacity(bytes.count - leading.member.count)
            rest.append(UInt8(ascii: "{"))
            rest.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[leading.member.upperBound...]))
            held = rest
            id = String(decoding: UnsafeBufferPointer(rebasing: bytes[leading.id]), as: UTF8.self)
        }

        /// The line as it was read.
        public var text: [UInt8] {
            guard let id else { return held }
            return Array(#"{"_id":""#.utf8) + Array(id.utf8) + Array(#"","#.utf8) + held.dropFirst()
        }

        /// A leading `"_id":"…",` member (from its key's quote through the
        /// comma after it) whose value is a string canonical as written,
        /// without escapes, and whose next key sorts after `_id` without
        /// starting with `_`. Left out, it leaves text that is canonical
        /// exactly when the line was: the member was in its place, and a
        /// second `_id` further on breaks the order either way.
        static func leadingID(_ bytes: UnsafeBufferPointer<UInt8>) -> (member: Range<Int>, id: Range<Int>)? {
            let opening = #"{"_id":""#.utf8
            guard bytes.count > opening.count + 4, bytes.starts(with: opening) else { return nil }
            var reader = JSONSkim.Reader(bytes: bytes, i: opening.count - 1, end: bytes.count)
            guard let id = reader.plainCanonicalString() else { return nil }
            guard reader.i + 2 < bytes.count, bytes[reader.i] == UInt8(ascii: ","), bytes[reader.i + 1] == UInt8(ascii: "\""),
                  bytes[reader.i + 2] > UInt8(ascii: "_") else { return nil }
            return (1..<(reader.i + 1), id)
        }
    }
}
