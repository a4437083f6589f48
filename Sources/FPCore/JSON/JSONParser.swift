/// A strict RFC 8259 parser that builds `JSONValue`s straight from bytes and
/// says where broken text breaks (byte offset, line, column, what was found).
///
/// Numbers without fraction or exponent that fit Int64 stay integers, the
/// rest are doubles: the canonical form and revision ids rely on this.
/// Foundation's JSONDecoder is avoided here because decoding an enum of
/// alternatives through it costs a thrown error per value (30 docs/s on 80 KB
/// documents), and its errors give no position.
public struct JSONParseError: Error, Equatable, CustomStringConvertible, Sendable {
    public var offset: Int
    public var line: Int
    public var column: Int
    public var reason: String

    public init(offset: Int, line: Int, column: Int, reason: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "not valid JSON near line \(line), column \(column): \(reason)" }
}

public enum JSONParser {
    public static let maximumDepth = 256

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        if let bad = firstInvalidUTF8(bytes) { throw error(bytes, Failure(offset: bad, reason: "not UTF-8 text")) }
        // Read through a buffer pointer: no bounds check per byte (about 10 % faster).
        let result: Result<JSONValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            do throws(Failure) {
                return .success(try reader.document())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw error(bytes, failure)
        }
    }

    /// 1-based line and column of a byte offset; columns count characters, not bytes.
    public static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes.prefix(offset) {
            if b == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {  // UTF-8 continuation bytes do not start a character
                column += 1
            }
        }
        return (line, column)
    }

    struct Failure: Error {
        var offset: Int
        var reason: String
    }

    static func error(_ bytes: [UInt8], _ f: Failure) -> JSONParseError {
        let (line, column) = lineAndColumn(of: f.offset, in: bytes)
        return JSONParseError(offset: f.offset, line: line, column: column, reason: f.reason)
    }

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        // ASCII is by far the common case: skip it without decoding.
        var offset = 0
        while offset < bytes.count && bytes[offset] < 0x80 { offset += 1 }
        if offset == bytes.count { return nil }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes[offset...].makeIterator()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The value of the 4 hex digits of a `\u` escape at `k`, nil if they are not.
    static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, at k: Int, end: Int) -> UInt32? {
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

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func document() throws(Failure) -> JSONValue {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }  // tolerate a UTF-8 byte order mark
            skipSpace()
            guard i < bytes.count else { throw Failure(offset: i, reason: "the document is empty") }
            let v = try value(depth: 0)
            skipSpace()
            if i < bytes.count { throw unexpected("after the end of the JSON value") }
            return v
        }

        mutating func value(depth: Int) throws(Failure) -> JSONValue {
            guard depth < JSONParser.maximumDepth else { throw Failure(offset: i, reason: "nested too deeply") }
            guard i < bytes.count else { throw Failure(offset: i, reason: "unexpected end of the document") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: throw unexpected("where a value should be")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            skipSpace()
            // Canonical text (what the store keeps) arrives sorted: JSONObject
            // then only checks the order and hashes nothing.
            var members: [JSONObject.Member] = []
            if peek == UInt8(ascii: "}") { i += 1; return .object(JSONObject()) }
            while true {
                guard peek == UInt8(ascii: "\"") else {
                    if peek == UInt8(ascii: "}") { throw Failure(offset: i, reason: "trailing comma before \"}\"") }
                    throw unexpected("where a key in double quotes should be")
                }
                let key = try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw unexpected("where \":\" should follow the key") }
                i += 1
                skipSpace()
                members.append((key, try value(depth: depth + 1)))  // a repeated key: the last one wins, as in CouchDB
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipSpace()
                case UInt8(ascii: "}"): i += 1; return .object(JSONObject(members: members))
                default: throw unexpected("where \",\" or \"}\" should be")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONValue {
            i += 1
            skipSpace()
            var items: [JSONValue] = []
            if peek == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                if peek == UInt8(ascii: "]") { throw Failure(offset: i, reason: "trailing comma before \"]\"") }
                items.append(try value(depth: depth + 1))
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipSpace()
                case UInt8(ascii: "]"): i += 1; return .array(items)
                default: throw unexpected("where \",\" or \"]\" should be")
                }
            }
        }

        mutating func string() throws(Failure) -> String {
            let start = i
            i += 1
            // Fast path: no escapes, so the bytes are the string.
            var j = i
            while j < bytes.count {
                let c = bytes[j]
                if c == UInt8(ascii: "\"") {
                    let s = String(decoding: bytes[i..<j], as: UTF8.self)
                    i = j + 1
                    return s
                }
                if c == UInt8(ascii: "\\") || c < 0x20 { break }
                j += 1
            }
            var out: [UInt8] = Array(bytes[i..<j])
            i = j
            while i < bytes.count {
                let c = bytes[i]
                switch c {
                case UInt8(ascii: "\""):
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    i += 1
                    guard i < bytes.count else { break }
                    let e = bytes[i]
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e); i += 1
                    case UInt8(ascii: "b"): out.append(0x08); i += 1
                    case UInt8(ascii: "f"): out.append(0x0C); i += 1
                    case UInt8(ascii: "n"): out.append(0x0A); i += 1
                    case UInt8(ascii: "r"): out.append(0x0D); i += 1
                    case UInt8(ascii: "t"): out.append(0x09); i += 1
                    case UInt8(ascii: "u"):
                        guard let unit = hex4(at: i + 1) else {
                            throw Failure(offset: i - 1, reason: "\\u must be followed by 4 hex digits")
                        }
                        i += 5
                        var scalar = Unicode.Scalar(unit)
                        // A high surrogate pairs with a following \uDC00–\uDFFF.
                        if (0xD800...0xDBFF).contains(unit), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"),
                            bytes[i + 1] == UInt8(ascii: "u"), let low = hex4(at: i + 2), (0xDC00...0xDFFF).contains(low)
                        {
                            scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                            i += 6
                        }
                        // A lone half has no character: refused, because replacing it
                        // (U+FFFD) would change a peer's text under its revision id.
                        guard let scalar else {
                            throw Failure(offset: i - 6, reason: "\\u\(String(unit, radix: 16)) is half of a surrogate pair with no other half")
                        }
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        throw Failure(offset: i - 1, reason: "invalid escape sequence in a string")
                    }
                case 0..<0x20:
                    let what = c == UInt8(ascii: "\n") ? "line break" : "control character"
                    throw Failure(offset: i, reason: "unescaped \(what) inside a string (did a closing \" go missing?)")
                default:
                    out.append(c)
                    i += 1
                }
            }
            throw Failure(offset: start, reason: "string is never closed")
        }

        func hex4(at k: Int) -> UInt32? { JSONParser.hex4(bytes, at: k, end: bytes.count) }

        mutating func number() throws(Failure) -> JSONValue {
            let start = i
            let negative = peek == UInt8(ascii: "-")
            if negative { i += 1 }
            guard let first = peek, isDigit(first) else { throw unexpected("where a digit should be") }
            i += 1
            if first == UInt8(ascii: "0"), let next = peek, isDigit(next) {
                throw Failure(offset: start, reason: "numbers must not have leading zeros")
            }
            skipDigits()
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard let d = peek, isDigit(d) else { throw unexpected("where a digit should follow \".\"") }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                integral = false
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard let d = peek, isDigit(d) else { throw unexpected("where an exponent should be") }
                skipDigits()
            }
            let digitsStart = negative ? start + 1 : start
            if integral && i - digitsStart <= 18 {  // 18 digits always fit Int64
                var v: Int64 = 0
                for b in bytes[digitsStart..<i] { v = v * 10 + Int64(b - UInt8(ascii: "0")) }
                if negative && v == 0 { return .numberText("-0") }  // "0" would change the text
                return .int(negative ? -v : v)
            }
            let token = String(decoding: bytes[start..<i], as: UTF8.self)
            if integral, let v = Int64(token) { return .int(v) }
            guard let d = Double(token), d.isFinite else {
                throw Failure(offset: start, reason: "number \(token) is out of range")
            }
            // Keep the text when writing the value back would not reproduce it.
            return CanonicalJSON.isCanonicalText(bytes[start..<i], of: d) ? .double(d) : .numberText(token)
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let n = word.utf8CodeUnitCount
            guard bytes.count - i >= n else { throw unexpected("where a value should be") }
            let matches = word.withUTF8Buffer { expected in
                (0..<n).allSatisfy { bytes[i + $0] == expected[$0] }
            }
            guard matches else { throw unexpected("where a value should be") }
            i += n
        }

        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpace() {
            while i < bytes.count {
                let c = bytes[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }

        mutating func skipDigits() {
            while i < bytes.count && isDigit(bytes[i]) { i += 1 }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        /// "unexpected <what is here> <context>", naming the character found.
        func unexpected(_ context: String) -> Failure {
            guard i < bytes.count else { return Failure(offset: i, reason: "unexpected end of the document") }
            let character = String(decoding: bytes[i..<min(i + 4, bytes.count)], as: UTF8.self).first.map(String.init) ?? "?"
            let shown = character == "\"" ? "'\"'" : "\"\(character)\""
            return Failure(offset: i, reason: "unexpected \(shown) \(context)")
        }
    }
}
