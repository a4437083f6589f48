import FPNet
import FPTestSupport
import Foundation
import Testing

/// The same requests to a real CouchDB 3.5.0 and to `fprint gateway`, for the
/// attachment tests that compare their answers (`AttachmentParityTests`).
struct ParitySide: Sendable {
    let name: String
    /// `http://127.0.0.1:PORT/db`, without credentials.
    let database: String
    let user: (name: String, password: String)

    /// CouchDB's new database `db`, as its admin.
    static func couch(_ couch: CouchDB, _ db: String) -> ParitySide {
        ParitySide(name: "CouchDB", database: couch.plainURL(db), user: CouchDB.admin)
    }

    /// The gateway's database, as the admin `ReplicatorTests.gateway()` makes.
    static func gateway(_ gateway: CouchDBPeers.ReplicatorTests.Gateway) -> ParitySide {
        ParitySide(name: "gateway", database: gateway.process.url, user: ("replicator", "pw"))
    }

    /// One request; `path` follows the database (`/doc?x=y`, `/_bulk_get`).
    @discardableResult
    func ask(_ method: HTTPMethod, _ path: String, json: String? = nil, body: Data? = nil,
             contentType: String = "application/json", accept: String = "application/json") async throws -> CouchDB.Answer {
        try await CouchDB.send(method, URL(string: database + path)!, user: user, body: json.map { Data($0.utf8) } ?? body,
                               contentType: contentType, accept: accept)
    }

    /// A request that must succeed (2xx), else the test fails with the answer.
    @discardableResult
    func must(_ method: HTTPMethod, _ path: String, json: String? = nil, body: Data? = nil,
              contentType: String = "application/json", accept: String = "application/json") async throws -> CouchDB.Answer {
        let answer = try await ask(method, path, json: json, body: body, contentType: contentType, accept: accept)
        guard (200..<300).contains(answer.status) else {
            throw PeerError("\(name) answered \(method) \(path) with \(answer.status): \(answer.text.prefix(400))")
        }
        return answer
    }
}

enum AttachmentText {
    /// The member names of every `"_attachments":{…}` in a compact JSON
    /// text (or a multipart body holding such parts), each list in text
    /// order: Foundation's reader keeps no member order, so the test reads
    /// the names from the bytes itself.
    static func orders(_ text: String) -> [[String]] {
        let bytes = Array(text.utf8), key = Array(#""_attachments":"#.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        var orders: [[String]] = [], from = 0
        while let hit = bytes[from...].firstRange(of: key) {
            var i = hit.upperBound, depth = 0, names: [String] = []
            scan: while i < bytes.count {
                switch bytes[i] {
                case quote:
                    let start = i + 1
                    i += 1
                    while i < bytes.count, bytes[i] != quote { i += bytes[i] == backslash ? 2 : 1 }
                    if depth == 1, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ":") {
                        names.append(String(decoding: bytes[start..<i], as: UTF8.self))
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { break scan }
                default:
                    break
                }
                i += 1
            }
            orders.append(names)
            from = hit.upperBound
        }
        return orders
    }

    /// The `filename="…"` of each attachment part of a multipart body, in order.
    static func partNames(_ text: String) -> [String] {
        text.matches(of: /filename="([^"]*)"/).map { String($0.1) }
    }

    /// A `multipart/related` document PUT: the JSON, then one part per
    /// attachment marked `follows`, in the order given.
    static func multipart(_ json: String, parts: [String], boundary: String = "attachment-parity") -> Data {
        var text = "--\(boundary)\r\nContent-Type: application/json\r\n\r\n\(json)\r\n"
        for part in parts { text += "--\(boundary)\r\n\r\n\(part)\r\n" }
        return Data((text + "--\(boundary)--\r\n").utf8)
    }

    /// The `_attachments` of a document answer, by name (Foundation's view),
    /// without their digests: CouchDB's digest of a type it compresses
    /// (`text/plain`) is the MD5 of its own gzip of the bytes, which fprint
    /// does not make (it gives the MD5 of the bytes; a peer's digest it keeps).
    static func entries(_ doc: Any?) -> [String: [String: Any]] {
        ((doc as? [String: Any])?["_attachments"] as? [String: Any] ?? [:]).compactMapValues { entry in
            (entry as? [String: Any])?.filter { $0.key != "digest" }
        }
    }
}
