import CZlib
import Foundation

/// MIME multipart bodies (RFC 2046): CouchDB's replicator PUTs a document
/// with attachments as `multipart/related` (the JSON first, then one part per
/// attachment marked `"follows": true`), and reads `open_revs` answers as
/// `multipart/mixed`.
enum Multipart {
    struct Part {
        /// Header names lowercased.
        var headers: [String: String]
        var body: [UInt8]
    }

    /// The parts between the delimiters; the preamble and epilogue are ignored.
    static func parts(_ body: [UInt8], boundary: String) throws(CouchError) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = find(delimiter, in: body, from: 0) else {
            throw CouchError.badRequest("the multipart body has no part delimited by its boundary")
        }
        var parts: [Part] = []
        while true {
            at += delimiter.count
            if body[at...].starts(with: Array("--".utf8)) { return parts }  // the closing delimiter
            guard let headersStart = find(crlf, in: body, from: at).map({ $0 + 2 }),
                  let headersEnd = find(crlf + crlf, in: body, from: headersStart - 2) else {
                throw CouchError.badRequest("a multipart part has no header block")
            }
            let contentStart = headersEnd + 4
            guard let next = find(crlf + delimiter, in: body, from: contentStart - 2) else {
                throw CouchError.badRequest("the multipart body is not closed by --\(boundary)--")
            }
            let content = next >= contentStart ? Array(body[contentStart..<next]) : []
            parts.append(Part(headers: headers(body[headersStart..<max(headersStart, headersEnd)]), body: content))
            at = next + 2
        }
    }

    /// One `multipart/mixed` part holding a JSON document, or (`error`) the
    /// JSON of why there is none, marked as Sync Gateway marks it.
    static func jsonPart(_ json: [UInt8], boundary: String, error: Bool = false) -> [UInt8] {
        let type = error ? #"application/json; error="true""# : "application/json"
        return Array("--\(boundary)\r\nContent-Type: \(type)\r\n\r\n".utf8) + json + Array("\r\n".utf8)
    }

    static func closing(_ boundary: String) -> [UInt8] { Array("--\(boundary)--".utf8) }

    /// A boundary no JSON text contains (it has no quote-free way to hold these bytes).
    static func newBoundary() -> String { UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    private static let crlf = Array("\r\n".utf8)

    private static func headers(_ block: ArraySlice<UInt8>) -> [String: String] {
        var out: [String: String] = [:]
        for line in String(decoding: block, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            out[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, start >= 0, haystack.count >= needle.count else { return nil }
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

/// gzip (RFC 1952) as CouchDB's replicator encodes text attachments.
enum Gzip {
    /// The inflated bytes; at most `limit` of them, so a small bomb cannot
    /// fill memory.
    static func inflate(_ input: [UInt8], limit: Int) throws(CouchError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw CouchError.badRequest("gzip: cannot start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = input
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { destination in
                    stream.next_out = destination.baseAddress
                    stream.avail_out = uInt(destination.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: destination[0..<(destination.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && output.count <= limit
        }
        guard status == Z_STREAM_END else {
            throw CouchError.badRequest(output.count > limit ? "gzip: the attachment inflates beyond \(limit) bytes"
                                                             : "gzip: the attachment part is not valid gzip")
        }
        return output
    }
}
