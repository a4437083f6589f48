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
        guard let contentType = request.headers[.contentType], let boundary = MultipartHeaders.boundary(of: contentType) else {
            throw CouchError.badRequest("a multipart body needs a boundary in its Content-Type")
        }
        let parts = try Multipart.parts([UInt8](request.body), boundary: boundary)
        guard let first = parts.first else { throw CouchError.badRequest("the multipart body has no document part") }
        let doc: JSONValue
        do {
            doc = try JSONParser.parse(first.body)
        } catch {
            throw CouchError.badRequest("invalid UTF-8 JSON in the first multipart part (\(error))")
        }
        let following = Attachments.following(in: doc)
        var followed: [String: [UInt8]] = [:]
        for (index, part) in parts.dropFirst().enumerated() {
            let named = part.headers["content-disposition"].flatMap(MultipartHeaders.filename(of:))
            guard let name = named ?? (index < following.count ? following[index] : nil) else {
                throw CouchError.badRequest("multipart part \(index + 2) belongs to no attachment marked follows")
            }
            let encoded = part.headers["content-encoding"]?.lowercased() == "gzip"
            followed[name] = encoded ? try Gzip.inflate(part.body, limit: config.bodyLimit) : part.body
        }
        return (doc, followed)
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
            if let parent {
                guard let current = try store.revision(id: id, rev: parent) else { throw CouchError.conflict }
                body = current.body
            }
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
            let rev = try store.edit(id: id, body: body, parent: parent, deleted: false, attachmentData: data)
            return .json(request.method == .put ? .created : .ok, ["ok": true, "id": .string(id), "rev": .string(rev.description)])
        default:
            throw CouchError.methodNotAllowed
        }
    }

    /// `atts_since=["2-…",…]`: the newest generation the asker has; its
    /// attachments up to that revpos stay stubs.
    static func attachmentsSince(_ request: CouchRequest) -> Int? {
        guard let text = request.query["atts_since"], let list = (try? CanonicalJSON.parse(text))?.arrayValue else { return nil }
        return list.compactMap { $0.stringValue.flatMap(Revision.init)?.generation }.max()
    }

    /// A stored revision as document text, with attachment bytes inline
    /// when asked. Only bodies with attachments are parsed for that.
    static func documentBytes(_ store: any ReplicableStore, _ stored: RevisionText, revs: Bool, attachments: Bool,
                              since: Int? = nil) throws -> [UInt8] {
        (attachments ? try store.inliningAttachments(stored, since: since) : stored).documentJSON(revisions: revs)
    }
}
