import FPCore
import Foundation
import HTTPTypes
import Synchronization

/// `GET /db/{id}?open_revs=all|[…]`: the `_bulk_get` fallback replicators
/// use, answered as CouchDB 3.5's chttpd does. As JSON, a list of
/// `{"ok": doc}` and `{"missing": rev}`. As `multipart/mixed` (what CouchDB's
/// replicator asks for, without `attachments=true`): per revision a JSON
/// part, or a `multipart/related` part whose JSON marks the attachments
/// that follow it (`"follows": true`) and is followed by their bytes — every
/// attachment but those `atts_since` covers (`send_docs_multipart` always
/// adds them); a missing revision is an `error="true"` part.
///
/// Each revision is answered once however often it is named or reached
/// through `latest`, found ones in the order first named, then the missing
/// ones (CouchDB 3.5 answers each once too). The answer is streamed a
/// revision at a time: a 9 KB request naming one 1 MB revision 200 times
/// was a 200 MB answer built whole, 650 MB of the gateway's memory.
extension CouchHandler {
    func openRevisions(_ request: CouchRequest, _ openRevs: String, id: String, revs: Bool, latest: Bool) throws -> Reply {
        let (wanted, unknown) = try askedRevisions(openRevs, id: id, latest: latest)
        let multipart = request.headers[.accept]?.contains("multipart/mixed") == true
        let format: OpenRevsStream.Format = multipart
            ? .multipart(boundary: Multipart.newBoundary(), inner: Multipart.newBoundary()) : .json
        var answer = OpenRevsStream(id: id, revs: revs, attachments: try AttachmentsAnswer(request), format: format,
                                    wanted: wanted, missing: unknown)
        // The first piece is made before the status goes out: a revision
        // that cannot be read is still a 500 of its own.
        let first = FirstPiece(try answer.next(store))
        let (store, budget) = (self.store, self.budget)
        return .stream(.ok, contentType: answer.contentType) { [answer] out in
            out.endsWithNewline = !multipart
            if let piece = first.take() { try await out.append(piece) }
            try await RowBatch.run(from: answer, budget: budget, { try $0.next(store) }) { try await out.append($0) }
        }
    }

    /// The revisions `open_revs` names, each once, in the order first named
    /// (with `latest`: the leaves they lead to), and the names that are no
    /// revision or (with `latest`) lead to none.
    func askedRevisions(_ openRevs: String, id: String, latest: Bool) throws -> (wanted: [Revision], unknown: [String]) {
        if openRevs == "all" {
            let leaves = try store.leaves(id: id).map(\.rev)
            if leaves.isEmpty { throw CouchError.notFound() }
            return (leaves, [])
        }
        guard let list = (try? CanonicalJSON.parse(openRevs))?.arrayValue else {
            throw CouchError.badRequest("open_revs must be \"all\" or a JSON array of revisions")
        }
        var names: [String] = [], named = Set<String>()
        for item in list {
            guard let text = item.stringValue else { throw CouchError.badRequest("open_revs must list revisions") }
            if named.insert(text).inserted { names.append(text) }
        }
        var asked: [Revision] = [], index: [Revision: Int] = [:]
        for rev in names.compactMap(Revision.init) where index[rev] == nil {
            index[rev] = asked.count
            asked.append(rev)
        }
        guard latest else { return (asked, names.filter { Revision($0) == nil }) }
        let leaves = try LatestLeaves(store, id: id, asked: asked)
        let unknown = names.filter { name in Revision(name).flatMap { index[$0] }.map { !leaves.reached.contains($0) } ?? true }
        return (leaves.inAskedOrder, unknown)
    }

    /// One revision's part of a `multipart/mixed` answer: JSON alone when no
    /// attachment follows, else `multipart/related` (boundary `inner`) with
    /// the JSON first and each attachment after revpos `since` (all: nil) in the order
    /// its stub has in the JSON, identity-encoded, its length declared (the
    /// headers CouchDB writes, the name unquoted as it writes it).
    static func multipartRevision(_ store: any ReplicableStore, _ stored: RevisionText, revs: Bool, since: Int?,
                                  boundary: String, inner: String) throws -> [UInt8] {
        var following: [(name: String, type: String, bytes: [UInt8])] = []
        let marked = try stored.replacingAttachments { stubs, order in
            var entries = stubs.objectValue ?? [:]
            // The parts go in the stubs' order, as CouchDB sends them.
            for name in Attachments.names(of: entries, in: order) {
                guard let entry = entries[name], var object = entry.objectValue, let digest = object["digest"]?.stringValue,
                      since.map({ (object["revpos"]?.intValue ?? 0) > $0 }) ?? true else {
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

/// Where an `open_revs` answer stands: the revisions to send, one at a
/// time, then the missing ones, which CouchDB sends last.
struct OpenRevsStream: Sendable {
    enum Format: Sendable {
        case json
        /// A revision with attachments is a `multipart/related` part of boundary `inner`.
        case multipart(boundary: String, inner: String)
    }

    let id: String
    let revs: Bool
    let attachments: AttachmentsAnswer
    let format: Format
    let wanted: [Revision]
    /// Names that are no revision or lead to none; revisions the store
    /// lacks join them as they are met.
    var missing: [String]
    private var next = 0
    /// Entries written (commas between JSON entries).
    private var sent = 0
    private var opened = false
    private var closed = false

    init(id: String, revs: Bool, attachments: AttachmentsAnswer, format: Format, wanted: [Revision], missing: [String]) {
        (self.id, self.revs, self.attachments, self.format, self.wanted, self.missing) = (id, revs, attachments, format, wanted, missing)
    }

    var contentType: String {
        switch format {
        case .json: "application/json"
        case .multipart(let boundary, _): "multipart/mixed; boundary=\"\(boundary)\""
        }
    }

    /// The next piece, the answer's opening in front of the first: a
    /// revision; then the missing ones and the close; nil after that. A
    /// revision the store lacks makes no piece: it is answered as missing.
    mutating func next(_ store: any ReplicableStore) throws -> [UInt8]? {
        var out: [UInt8] = []
        if !opened, case .json = format { out.append(UInt8(ascii: "[")) }
        opened = true
        while next < wanted.count {
            let rev = wanted[next]
            next += 1
            guard let stored = try store.revisionText(id: id, rev: rev) else {
                missing.append(rev.description)
                continue
            }
            switch format {
            case .json:
                if sent > 0 { out.append(UInt8(ascii: ",")) }
                out += Array(#"{"ok":"#.utf8)
                out += try attachments.inline(store, stored).documentJSON(revisions: revs)
                out.append(UInt8(ascii: "}"))
            case .multipart(let boundary, let inner):
                out += try CouchHandler.multipartRevision(store, stored, revs: revs, since: attachments.stubsUpTo(stored),
                                                         boundary: boundary, inner: inner)
            }
            sent += 1
            return out
        }
        guard !closed else { return nil }
        closed = true
        for rev in missing {
            let entry: JSONValue = ["missing": .string(rev)]
            switch format {
            case .json:
                if sent > 0 { out.append(UInt8(ascii: ",")) }
                CanonicalJSON.write(entry, into: &out)
            case .multipart(let boundary, _):
                out += Multipart.jsonPart(CanonicalJSON.bytes(entry), boundary: boundary, error: true)
            }
            sent += 1
        }
        switch format {
        case .json: out.append(UInt8(ascii: "]"))
        case .multipart(let boundary, _): out += Multipart.closing(boundary)
        }
        return out
    }
}

/// A piece made before an answer starts, handed over once and then let go
/// (the answer's closure would otherwise hold it to its end).
final class FirstPiece: Sendable {
    private let piece: Mutex<[UInt8]?>

    init(_ piece: [UInt8]?) { self.piece = Mutex(piece) }

    func take() -> [UInt8]? { piece.withLock { taken in defer { taken = nil }; return taken } }
}
