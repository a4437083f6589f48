import CZlib
import FPCore
import Foundation

/// MIME multipart bodies (RFC 2046): CouchDB's replicator PUTs a document
/// with attachments as `multipart/related` (the JSON first, then one part per
/// attachment marked `"follows": true`), and reads `open_revs` and
/// `_bulk_get` answers as `multipart/mixed`.
enum Multipart {
    /// The parts of a request body (FPCore's reader), its faults as 400s.
    static func parts(_ body: [UInt8], boundary: String) throws(CouchError) -> [MultipartBody.Part] {
        do {
            return try MultipartBody.parts(body, boundary: boundary)
        } catch {
            throw CouchError.badRequest("the multipart body is malformed: \(error)")
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
