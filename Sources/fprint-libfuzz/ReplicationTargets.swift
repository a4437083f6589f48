import FPCore
import FPNet
import FPSync
import Foundation

// What the gateway and the sync client decode from a peer: JSON bodies,
// `_bulk_docs` documents taken as sent, `_revs_diff`, `_bulk_get`/`open_revs`
// answers (JSON and multipart), multipart bodies, tokens and cookies.
let replicationTargets: [FuzzTarget] = [
    FuzzTarget(name: "json") { bytes in
        // The parser every body goes through, and the skim that reads documents without building values.
        if let value = try? JSONParser.parse(bytes) { _ = CanonicalJSON.bytes(value) }
        let skim = JSONSkim(bytes)
        if let root = skim.value(in: 0..<bytes.count, levels: 4) { _ = try? skim.parse(root.value) }
    },
    FuzzTarget(name: "bulk-docs") { bytes in
        // The gateway's `_bulk_docs` reading (BulkDocsBody.read): one skim, each document taken as sent.
        let skim = JSONSkim(bytes)
        guard let root = skim.value(in: 0..<bytes.count, levels: 3), root.members != nil else {
            _ = try? JSONParser.parse(bytes)
            return
        }
        _ = root["new_edits"].map { try? skim.parse($0.value) }
        for node in root["docs"]?.elements ?? [] {
            _ = node["_id"].flatMap { try? skim.parse($0.value) }
            _ = try? RevisionContent.received(skim, document: node, reading: "owner")
            if let attachments = node["_attachments"] { _ = Attachments.order(skim, attachments.value) }
            _ = try? skim.parse(node.value)
        }
    },
    FuzzTarget(name: "revs-diff") { bytes in
        // `_revs_diff`: {"id": ["rev", …]}; each revision text read as the gateway reads it.
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value else { return }
        for revs in members.values { for rev in revs.arrayValue ?? [] { _ = rev.stringValue.flatMap { Revision($0) } } }
    },
    FuzzTarget(name: "bulk-get") { bytes in
        // The sync client's reading of `_bulk_get` and `open_revs` answers; the
        // first byte picks the content type a peer could send with them.
        let types = ["application/json", "multipart/mixed; boundary=\"b1\"", "multipart/related; boundary=b1", "multipart/mixed"]
        let type = bytes.first.map { types[Int($0) % types.count] }
        _ = try? BulkGetAnswer.parse(body: Data(bytes.dropFirst()), contentType: type)
    },
    FuzzTarget(name: "multipart") { bytes in
        // A multipart body (first piece: its Content-Type header; then the body).
        let p = pieces(bytes, 2)
        let header = text(p[0])
        let boundary = MultipartHeaders.boundary(of: header) ?? "b1"
        for part in (try? MultipartBody.parts(p[1], boundary: boundary)) ?? [] {
            _ = part.headers["content-disposition"].flatMap { MultipartHeaders.filename(of: $0) }
        }
        _ = MultipartHeaders.filename(of: header)
    },
    FuzzTarget(name: "token") { bytes in
        // A bearer token's claims as the client reads its own (no signature
        // check), base64url, and a Set-Cookie header as the sync client reads it.
        let t = text(bytes)
        _ = TokenClaims.unverified(t)
        _ = Base64URL.decode(t[...])
        _ = TokenClaims(payload: Data(bytes))
        _ = CouchSession.cookie(in: HTTPHeaders([.init(name: "Set-Cookie", value: t)]), now: Date(timeIntervalSince1970: 0))
    },
]
