/// The tokens of JSON text (strings, numbers, literals), checked as the
/// parser checks them and judged canonical as the writer writes them.
extension JSONSkim.Reader {
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

    /// A string from its opening quote with no escapes and canonical as
    /// written: the range of its bytes between the quotes; nil for anything
    /// else (the contract shortcut's keys and ids).
    mutating func plainCanonicalString() -> Range<Int>? {
        let start = i
        guard peek == UInt8(ascii: "\""), let read = string(), read.canonical, !read.escaped else { return nil }
        return (start + 1)..<(i - 1)
    }

    /// A string from its opening quote. Canonical escapes are the writer's
    /// own: `\"`, `\\`, `\b \f \n \r \t`, and `\u00xx` (lowercase) for the
    /// other control characters. nil for what the parser refuses.
    mutating func string() -> (canonical: Bool, escaped: Bool)? {
        i += 1
        var canonical = true, escaped = false
        while i < end {
            let plain = plainBytesAhead()
            i += plain
            if plain == 8 { continue }
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

    /// How many of the next 8 bytes are plain string text (printable
    /// ASCII other than `"` and `\\`), tested together as one word: 8 when
    /// all are, else where the first other byte is; 0 near the end. The
    /// lowest flagged byte is exact (a flag's borrow only reaches bytes
    /// above it). Most of a document's text is keys, addresses and names.
    @inline(__always)
    func plainBytesAhead() -> Int {
        guard end - i >= 8 else { return 0 }
        let word = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let flagged = (word &- ones &* 0x20) & ~word & highs  // below 0x20
            | word & highs  // not ASCII
            | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))  // `"`, `\\`
        return flagged == 0 ? 8 : flagged.trailingZeroBitCount >> 3
    }

    /// Whether `\uXXXX` is how the writer spells this unit: a control
    /// character without a short escape, in lowercase hex.
    func isWritersEscape(_ unit: UInt32, at k: Int) -> Bool {
        guard unit < 0x20, ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(unit) else { return false }
        return !bytes[k..<(k + 4)].contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }
    }

    func hex4(at k: Int) -> UInt32? { JSONParser.hex4(bytes, at: k, end: end) }

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
