import FPTestSupport
import Foundation

/// An HTTP answer as it came off the wire: status, headers (names in lower
/// case) and the body, its chunks joined when it was sent chunked.
struct RawAnswer {
    var status: Int?
    var headers: [String: String] = [:]
    var body: [UInt8] = []

    init(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else { return }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        status = RawConnection.status(head.first ?? "")
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let rest = Array(bytes[end.upperBound...])
        body = headers["transfer-encoding"]?.lowercased() == "chunked" ? Self.dechunked(rest) : rest
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// How often `needle` occurs in the body.
    func count(_ needle: String) -> Int {
        let pattern = Array(needle.utf8)
        var found = 0, from = body.startIndex
        while let range = body[from...].firstRange(of: pattern) {
            found += 1
            from = range.upperBound
        }
        return found
    }

    /// Each chunk is a hexadecimal size line, its bytes and a CRLF; a size of 0 ends the body.
    static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], at = 0
        while let lineEnd = bytes[at...].firstRange(of: [13, 10]),
              let size = Int(String(decoding: bytes[at..<lineEnd.lowerBound], as: UTF8.self), radix: 16), size > 0 {
            let start = lineEnd.upperBound
            out += bytes[start..<min(start + size, bytes.count)]
            at = min(start + size + 2, bytes.count)
        }
        return out
    }
}

extension RawAnswer {
    /// One request on a connection of its own, its answer read whole.
    static func ask(port: Int, _ method: String, _ path: String, _ headers: [String], body: String = "",
                    host: String = "127.0.0.1", timeout: TimeInterval) async throws -> RawAnswer {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        connection.send(head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body)
        return RawAnswer(Array(await connection.readAll(timeout: timeout).utf8))
    }
}
