import FPCore
import Foundation
import Hummingbird

/// Attachments: incoming `_attachments` (inline, stubs, multipart parts)
/// become stubs plus bytes for the store; `/db/doc/att` serves and changes
/// one; `attachments=true` puts the bytes back inline.
extension CouchHandler {
    /// Inline or followed bytes become stubs; every stub must name bytes the
    /// store has for this document, or the write fails as CouchDB's does (412).
    func stubbingAttachments(id: String, body: JSONValue, revpos: Int, replicated: Bool,
                             followed: [String: [UInt8]] = [:]) throws -> Attachments.Stubbed {
        let stubbed: Attachments.Stubbed
        do {
            stubbed = try Attachments.stubbing(body, revpos: revpos, keepDigests: replicated, followed: followed)
        } catch {
            throw CouchError.badRequest("document \(id): \(error)")
        }
        for stub in Attachments.stubs(of: stubbed.body) where stubbed.data[stub.digest] == nil {
            guard try store.hasAttachment(id: id, digest: stub.digest) else {
                throw CouchError(status: .preconditionFailed, error: "missing_stub",
                                 reason: "Invalid attachment stub in \(id) for \(stub.name)")
            }
        }
        return stubbed
    }

    /// A `multipart/related` document PUT: the JSON part, and the bytes of
    /// each attachment part by name (by its filename, else in `_attachments`
    /// order), gzip-inflated when the part says so.
    func multipartDocument(_ request: CouchRequest) throws -> (doc: JSONValue, followed: [String: [UInt8]]) {
        let (text, followed) = try multipartDocumentText(request)
        return (try Self.json(text, what: "the first multipart part"), followed)
    }

    /// The same, with the document as the text it came as.
    func multipartDocumentText(_ request: CouchRequest) throws -> (text: [UInt8], followed: [String: [UInt8]]) {
        guard let contentType = request.headers[.contentType], let boundary = MultipartHeaders.boundary(of: contentType) else {
            throw CouchError.badRequest("a multipart body needs a boundary in its Content-Type")
        }
        let parts = try Multipart.parts([UInt8](request.body), boundary: boundary)
        guard let first = parts.first else { throw CouchError.badRequest("the multipart body has no document part") }
        let following = Attachments.following(in: try Self.json(first.body, what: "the first multipart part"), text: first.body)
        var followed: [String: [UInt8]] = [:]
        for (index, part) in parts.dropFirst().enumerated() {
            let named = part.headers["content-disposition"].flatMap(MultipartHeaders.filename(of:))
            guard let name = named ?? (index < following.count ? following[index] : nil) else {
                throw CouchError.badRequest("multipart part \(index + 2) belongs to no attachment marked follows")
            }
            let encoded = part.headers["content-encoding"]?.lowercased() == "gzip"
            followed[name] = encoded ? try Gzip.inflate(part.body, limit: config.bodyLimit) : part.body
        }
        return (first.body, followed)
    }

    /// JSON text parsed, or CouchDB's 400 saying where it is wrong.
    static func json(_ text: [UInt8], what: String) throws -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw CouchError.badRequest("invalid UTF-8 JSON in \(what) (\(error))")
        }
    }

    /// A replicated document split from its text as it came
    /// (`RevisionContent.received`), with its signer; nil when it takes the
    /// parser's way. An attachment that cannot be taken as given is a 400.
    func receivedRevision(_ skim: JSONSkim, _ node: JSONSkim.Node, _ followed: [String: [UInt8]] = [:]) throws
        -> (content: RevisionContent, value: JSONValue?)?
    {
        do {
            return try RevisionContent.received(skim, document: node, reading: Self.ownerKey, followed: followed)
        } catch {
            let id = node["_id"].flatMap { try? skim.parse($0.value) }?.stringValue ?? "?"
            throw CouchError.badRequest("document \(id): \(error)")
        }
    }

    /// Every stub of a received revision must name bytes it brought or the
    /// store has, or the write fails as CouchDB's does (412 `missing_stub`).
    func requireStubbedBytes(_ content: RevisionContent) throws {
        guard let text = content.bodyText, Attachments.mayHaveAttachments(text) else { return }
        for stub in Attachments.stubs(of: content.body) where content.attachmentData[stub.digest] == nil {
            guard try store.hasAttachment(id: content.id, digest: stub.digest) else {
                throw CouchError(status: .preconditionFailed, error: "missing_stub",
                                 reason: "Invalid attachment stub in \(content.id) for \(stub.name)")
            }
        }
    }

    /// `GET|HEAD|PUT|DELETE /db/{id}/{name}`.
    func attachment(_ request: CouchRequest, id: String, name: String, user: GatewayUser) throws -> Reply {
        switch request.method {
        case .get, .head:
            guard let target = try request.revisionQuery() ?? store.leaves(id: id).first.flatMap({ $0.deleted ? nil : $0.rev }),
                  let content = try store.revision(id: id, rev: target),
                  let stub = Attachments.stubs(of: content.body).first(where: { $0.name == name }),
                  let bytes = try store.attachmentBytes(id: id, digest: stub.digest) else {
                throw CouchError.notFound("Document is missing attachment")
            }
            var headers = HTTPFields()
            headers[.eTag] = "\"\(stub.digest.dropFirst(4))\""
            return .withHeaders(headers, .file(Data(bytes), contentType: stub.contentType))
        case .put, .delete:
            let parent = try request.revisionQuery()
            var body: JSONValue = ["_attachments": [:]]
            var order: [String] = []
            if let parent {
                guard let current = try store.revisionText(id: id, rev: parent) else { throw CouchError.conflict }
                do {
                    body = try current.content().body
                } catch {
                    throw DamagedDocument(id: id, rev: parent.description, reason: "it is not valid JSON (\(error))")
                }
                order = Attachments.order(inDocument: Array(current.bodyText.utf8)).filter { $0 != name }
            }
            // CouchDB puts the attachment a PUT writes first, the others in their order.
            if request.method == .put { order.insert(name, at: 0) }
            var entries = body["_attachments"]?.objectValue ?? [:]
            var data: [String: [UInt8]] = [:]
            if request.method == .put {
                let bytes = [UInt8](request.body)
                let digest = Attachments.digest(of: bytes)
                data[digest] = bytes
                entries[name] = Attachments.stub(contentType: request.headers[.contentType], digest: digest,
                                                 length: bytes.count, revpos: (parent?.generation ?? 0) + 1)
            } else {
                guard entries[name] != nil else { throw CouchError.notFound("Document is missing attachment") }
                entries[name] = nil
            }
            body["_attachments"] = entries.isEmpty ? nil : .object(entries)
            try authorize(user, id: id, body: body, deleted: false)
            let rev = try store.edit(id: id, body: body, parent: parent, deleted: false, attachmentData: data,
                                     attachmentOrder: order)
            return .json(request.method == .put ? .created : .ok, ["ok": true, "id": .string(id), "rev": .string(rev.description)])
        default:
            throw CouchError.methodNotAllowed
        }
    }

    /// The answer's documents as the bulk readers send them: attachments
    /// inline when asked (`attachments=true`).
    static func documentBytes(_ store: any ReplicableStore, _ stored: RevisionText, revs: Bool, attachments: Bool)
        throws -> [UInt8]
    {
        (attachments ? try store.inliningAttachments(stored) : stored).documentJSON(revisions: revs)
    }
}

/// Which attachments a document answer carries, as CouchDB decides:
/// `attachments=true` asks for all of them; `atts_since=[revs]` for those
/// newer than the newest of those revisions in the document's own history
/// (CouchDB's `find_ancestor_rev_pos`; none found: all). The rest stay stubs.
struct AttachmentsAnswer: Sendable {
    var all: Bool
    /// A set: each revision of an answer looks its whole history up in it.
    var since: Set<Revision>?

    init(_ request: CouchRequest) throws {
        all = request.flag("attachments")
        if let text = request.query["atts_since"] {
            guard let list = (try? CanonicalJSON.parse(text))?.arrayValue else {
                throw CouchError.badRequest("atts_since must be a JSON array of revisions")
            }
            since = Set(list.compactMap { $0.stringValue.flatMap(Revision.init) })
        }
    }

    /// Whether any attachment goes with the document (JSON answers).
    var wanted: Bool { all || since != nil }

    /// The revpos up to which a revision's attachments stay stubs: the
    /// generation of its newest ancestor the asker named, else 0 (an
    /// attachment a peer gave revpos 0 stays a stub, as in CouchDB); nil
    /// without `atts_since`: every attachment goes.
    func stubsUpTo(_ stored: RevisionText) -> Int? {
        guard let since else { return nil }
        return stored.history.first { since.contains($0) }?.generation ?? 0
    }

    /// The revision with the wanted attachments inline (`data`), for JSON answers.
    func inline(_ store: any ReplicableStore, _ stored: RevisionText) throws -> RevisionText {
        guard wanted else { return stored }
        return try store.inliningAttachments(stored, since: stubsUpTo(stored))
    }
}
