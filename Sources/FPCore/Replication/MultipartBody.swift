import Foundation

/// The parts of a MIME multipart body (RFC 2046): one reader for the gateway
/// (CouchDB's multipart/related document PUTs) and the sync client (Sync
/// Gateway's multipart/mixed answers, nested multipart/related documents).
///
/// The line end before a delimiter belongs to the delimiter, so a part's
/// bytes are exactly what was sent, binary ones ending in CR or LF included.
/// Line ends are CRLF; a bare LF from a peer that sends them is read too.
public enum MultipartBody {
    public struct Part: Sendable, Equatable {
        /// Header names lowercased, values trimmed.
        public var headers: [String: String]
        public var body: [UInt8]

        public init(headers: [String: String], body: [UInt8]) {
            self.headers = headers
            self.body = body
        }
    }

    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The parts between the first delimiter and the closing one; the
    /// preamble and the epilogue are ignored.
    public static func parts(_ bytes: [UInt8], boundary: String) throws(Malformed) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = find(delimiter, in: bytes, from: 0) else {
            throw Malformed(description: "no part delimited by the boundary \(boundary)")
        }
        var parts: [Part] = []
        while true {
            at += delimiter.count
            if bytes[at...].starts(with: [0x2D, 0x2D]) { return parts }  // "--": the closing delimiter
            // The rest of the delimiter line (transport padding), then the headers up to an empty line.
            guard var line = nextLine(bytes, from: at) else { throw Malformed(description: "a part has no header block") }
            var headers: [String: String] = [:]
            while true {
                guard let next = nextLine(bytes, from: line.next) else {
                    throw Malformed(description: "a part has no header block")
                }
                line = next
                if line.text.isEmpty { break }
                let text = String(decoding: line.text, as: UTF8.self)
                guard let colon = text.firstIndex(of: ":") else { continue }
                headers[text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                    text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let start = line.next
            // The LF (and its CR) before the next delimiter end the part.
            guard let lf = find([0x0A] + delimiter, in: bytes, from: start - 1) else {
                throw Malformed(description: "the body is not closed by --\(boundary)--")
            }
            var end = lf
            if end > start, bytes[end - 1] == 0x0D { end -= 1 }
            parts.append(Part(headers: headers, body: end > start ? Array(bytes[start..<end]) : []))
            at = lf + 1
        }
    }

    /// The line starting at `from` without its line end, and where the next one starts.
    private static func nextLine(_ bytes: [UInt8], from: Int) -> (text: ArraySlice<UInt8>, next: Int)? {
        guard from < bytes.count, let lf = bytes[from...].firstIndex(of: 0x0A) else { return nil }
        let end = lf > from && bytes[lf - 1] == 0x0D ? lf - 1 : lf
        return (bytes[from..<end], lf + 1)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var i = max(0, start)
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
