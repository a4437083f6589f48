import FPCore
import Foundation
import HTTPTypes

/// `GET /db/{id}?open_revs=all|[…]`: the `_bulk_get` fallback replicators
/// use, answered as CouchDB 3.5's chttpd does. As JSON, a list of
/// `{"ok": doc}` and `{"missing": rev}`. As `multipart/mixed` (what CouchDB's
/// replicator asks for, without `attachments=true`): per revision a JSON
/// part, or a `multipart/related` part whose JSON marks the attachments
/// that follow it (`"follows": true`) and is followed by their bytes — every
/// attachment but those `atts_since` covers (`send_docs_multipart` always
/// adds them); a missing revision is an `error="true"` part.
extension CouchHandler {
    func openRevisions(_ request: CouchRequest, _ openRevs: String, id: String, revs: Bool, latest: Bool) throws -> Reply {
        var wanted: [Revision] = []
        var unknown: [String] = []
        if openRevs == "all" {
            wanted = try store.leaves(id: id).map(\.rev)
            if wanted.isEmpty { throw CouchError.notFound() }
        } else {
            guard let list = (try? CanonicalJSON.parse(openRevs))?.arrayValue else {
                throw CouchError.badRequest("open_revs must be \"all\" or a JSON array of revisions")
            }
            for item in list {
                guard let text = item.stringValue else { throw CouchError.badRequest("open_revs must list revisions") }
                guard let rev = Revision(text) else { unknown.append(text); continue }
                let found = latest ? try store.latestLeaves(id: id, from: rev) : [rev]
                if found.isEmpty { unknown.append(text) }
                wanted += found
            }
        }
        var found: [RevisionText] = []
        for rev in wanted {
            if let stored = try store.revisionText(id: id, rev: rev) { found.append(stored) } else { unknown.append(rev.description) }
        }
        let attachments = try AttachmentsAnswer(request)
        if request.headers[.accept]?.contains("multipart/mixed") == true {
            let boundary = Multipart.newBoundary(), inner = Multipart.newBoundary()
            var out: [UInt8] = []
            for stored in found {
                out += try Self.multipartRevision(store, stored, revs: revs, since: attachments.stubsUpTo(stored),
                                                  boundary: boundary, inner: inner)
            }
            for rev in unknown {
                out += Multipart.jsonPart(CanonicalJSON.bytes(["missing": .string(rev)]), boundary: boundary, error: true)
            }
            out += Multipart.closing(boundary)
            return .file(Data(out), contentType: "multipart/mixed; boundary=\"\(boundary)\"")
        }
        var out = Array("[".utf8)
        for stored in found {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"ok":"#.utf8) + (try attachments.inline(store, stored).documentJSON(revisions: revs))
            out.append(UInt8(ascii: "}"))
        }
        for rev in unknown {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            CanonicalJSON.write(["missing": .string(rev)], into: &out)
        }
        out.append(UInt8(ascii: "]"))
        return .jsonText(.ok, out)
    }

    /// One revision's part of a `multipart/mixed` answer: JSON alone when no
    /// attachment follows, else `multipart/related` (boundary `inner`) with
    /// the JSON first and each attachment after revpos `since` in the order
    /// its stub has in the JSON, identity-encoded, its length declared (the
    /// headers CouchDB writes, the name unquoted as it writes it).
    static func multipartRevision(_ store: any ReplicableStore, _ stored: RevisionText, revs: Bool, since: Int,
                                  boundary: String, inner: String) throws -> [UInt8] {
        var following: [(name: String, type: String, bytes: [UInt8])] = []
        let marked = try stored.replacingAttachments { stubs in
            var entries = JSONObject()
            for (name, entry) in stubs.objectValue ?? [:] {
                guard var object = entry.objectValue, let digest = object["digest"]?.stringValue,
                      (object["revpos"]?.intValue ?? 0) > since else {
                    entries[name] = entry
                    continue
                }
                guard let bytes = try store.attachmentBytes(id: stored.id, digest: digest) else {
                    throw DamagedDocument(id: stored.id, rev: stored.rev.description,
                                          reason: "the bytes of attachment \(digest) are missing")
                }
                object["stub"] = nil
                object["follows"] = true
                object["length"] = .int(Int64(bytes.count))
                // The bytes go as stored, identity-encoded; CouchDB checks them
                // against the digest, and that of an attachment which came
                // gzip-encoded is the gzip's (CouchDB sends those encoded, we
                // kept them inflated): such a stub goes with the bytes' own.
                let own = Attachments.digest(of: bytes)
                if own != digest { object["digest"] = .string(own) }
                following.append((name, object["content_type"]?.stringValue ?? "application/octet-stream", bytes))
                entries[name] = .object(object)
            }
            return .object(entries)
        }
        let json = marked.documentJSON(revisions: revs)
        guard !following.isEmpty else { return Multipart.jsonPart(json, boundary: boundary) }
        var part = Array("--\(boundary)\r\nContent-Type: multipart/related; boundary=\"\(inner)\"\r\n\r\n".utf8)
        part += Multipart.jsonPart(json, boundary: inner)
        for attachment in following {
            part += Array("--\(inner)\r\nContent-Disposition: attachment; filename=\"\(attachment.name)\"\r\n".utf8)
            part += Array("Content-Type: \(attachment.type)\r\nContent-Length: \(attachment.bytes.count)\r\n\r\n".utf8)
            part += attachment.bytes + Array("\r\n".utf8)
        }
        return part + Multipart.closing(inner) + Array("\r\n".utf8)
    }
}
