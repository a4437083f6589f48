import FPCore
import Foundation

/// Turns JSON text into a `JSONValue`, with errors that say where the text
/// is broken.
///
/// Foundation's parser reports at best "around character N" in a debug string
/// and accepts things that are not JSON (trailing commas), so a strict syntax
/// check runs first: it finds the first error and its line and column. Only
/// text that passes goes to `CanonicalJSON.parse`, whose int/double rules
/// the rest of fprint relies on.
enum JSONText {
    static func parse(_ data: Data, source: String) throws(ConfigError) -> JSONValue {
        let bytes = [UInt8](data)
        if let failure = JSONSyntax.firstError(in: bytes) {
            let (line, column) = JSONSyntax.lineAndColumn(of: failure.offset, in: bytes)
            throw ConfigError(source: source, "not valid JSON near line \(line), column \(column): \(failure.reason)")
        }
        do {
            return try CanonicalJSON.parse(data)
        } catch {
            throw ConfigError(source: source, "not valid JSON")  // the syntax check should have caught it
        }
    }
}

/// A strict RFC 8259 syntax check that stops at the first error.
enum JSONSyntax {
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
    }

    static let maximumDepth = 256

    static func firstError(in bytes: [UInt8]) -> Failure? {
        if let bad = firstInvalidUTF8(bytes) { return Failure(offset: bad, reason: "not UTF-8 text") }
        var scanner = Scanner(bytes: bytes)
        do {
            try scanner.document()
            return nil
        } catch {
            return error
        }
    }

    /// 1-based line and column of a byte offset; columns count characters, not bytes.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
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

    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func document() throws(Failure) {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }  // tolerate a UTF-8 byte order mark
            skipSpace()
            guard i < bytes.count else { throw Failure(offset: i, reason: "the document is empty") }
            try value(depth: 0)
            skipSpace()
            if i < bytes.count { throw unexpected("after the end of the JSON value") }
        }

        mutating func value(depth: Int) throws(Failure) {
            guard depth < JSONSyntax.maximumDepth else { throw Failure(offset: i, reason: "nested too deeply") }
            guard let c = peek else { throw Failure(offset: i, reason: "unexpected end of the document") }
            switch c {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: throw unexpected("where a value should be")
            }
        }

        mutating func object(depth: Int) throws(Failure) {
            i += 1
            skipSpace()
            if peek == UInt8(ascii: "}") { i += 1; return }
            while true {
                guard peek == UInt8(ascii: "\"") else {
                    if peek == UInt8(ascii: "}") { throw Failure(offset: i, reason: "trailing comma before \"}\"") }
                    throw unexpected("where a key in double quotes should be")
                }
                try string()
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw unexpected("where \":\" should follow the key") }
                i += 1
                skipSpace()
                try value(depth: depth + 1)
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipSpace()
                case UInt8(ascii: "}"): i += 1; return
                default: throw unexpected("where \",\" or \"}\" should be")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) {
            i += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { i += 1; return }
            while true {
                if peek == UInt8(ascii: "]") { throw Failure(offset: i, reason: "trailing comma before \"]\"") }
                try value(depth: depth + 1)
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): i += 1; skipSpace()
                case UInt8(ascii: "]"): i += 1; return
                default: throw unexpected("where \",\" or \"]\" should be")
                }
            }
        }

        mutating func string() throws(Failure) {
            let start = i
            i += 1
            while let c = peek {
                switch c {
                case UInt8(ascii: "\""):
                    i += 1
                    return
                case UInt8(ascii: "\\"):
                    i += 1
                    guard let e = peek else { break }
                    if e == UInt8(ascii: "u") {
                        for k in 1...4 where !(i + k < bytes.count && isHexDigit(bytes[i + k])) {
                            throw Failure(offset: i - 1, reason: "\\u must be followed by 4 hex digits")
                        }
                        i += 5
                    } else if Array("\"\\/bfnrt".utf8).contains(e) {
                        i += 1
                    } else {
                        throw Failure(offset: i - 1, reason: "invalid escape sequence in a string")
                    }
                case 0..<0x20:
                    let what = c == UInt8(ascii: "\n") ? "line break" : "control character"
                    throw Failure(offset: i, reason: "unescaped \(what) inside a string (did a closing \" go missing?)")
                default:
                    i += 1
                }
            }
            throw Failure(offset: start, reason: "string is never closed")
        }

        mutating func number() throws(Failure) {
            let start = i
            if peek == UInt8(ascii: "-") { i += 1 }
            guard let first = peek, isDigit(first) else { throw unexpected("where a digit should be") }
            i += 1
            if first == UInt8(ascii: "0"), let next = peek, isDigit(next) {
                throw Failure(offset: start, reason: "numbers must not have leading zeros")
            }
            skipDigits()
            if peek == UInt8(ascii: ".") {
                i += 1
                guard let d = peek, isDigit(d) else { throw unexpected("where a digit should follow \".\"") }
                skipDigits()
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                i += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
                guard let d = peek, isDigit(d) else { throw unexpected("where an exponent should be") }
                skipDigits()
            }
            let token = String(decoding: bytes[start..<i], as: UTF8.self)
            if let d = Double(token), !d.isFinite {
                throw Failure(offset: start, reason: "number \(token) is out of range")
            }
        }

        mutating func literal(_ word: String) throws(Failure) {
            let expected = Array(word.utf8)
            guard bytes.count - i >= expected.count, Array(bytes[i..<(i + expected.count)]) == expected else {
                throw unexpected("where a value should be")
            }
            i += expected.count
        }

        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func skipSpace() {
            while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1 }
        }

        mutating func skipDigits() {
            while let c = peek, isDigit(c) { i += 1 }
        }

        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

        func isHexDigit(_ c: UInt8) -> Bool {
            isDigit(c) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
        }

        /// "unexpected <what is here> <context>", naming the character found.
        func unexpected(_ context: String) -> Failure {
            guard i < bytes.count else { return Failure(offset: i, reason: "unexpected end of the document") }
            let character = String(decoding: bytes[i..<min(i + 4, bytes.count)], as: UTF8.self).first.map(String.init) ?? "?"
            let shown = character == "\"" ? "'\"'" : "\"\(character)\""
            return Failure(offset: i, reason: "unexpected \(shown) \(context)")
        }
    }
}
