import FPCore
import Foundation
import HTTPTypes

/// `/db/{id}`: one document read, written or deleted, and the rules on who
/// may write what.
extension CouchHandler {
    func document(_ request: CouchRequest, id: String, user: GatewayUser) throws -> Reply {
        switch request.method {
        case .get:
            return try getDocument(request, id: id)
        case .put:
            let isMultipart = request.headers[.contentType]?.lowercased().hasPrefix("multipart/related") == true
            if request.query["new_edits"] == "false" {
                return try putReplicated(request, id: id, user: user, multipart: isMultipart)
            }
            let (text, followed) = isMultipart ? try multipartDocumentText(request) : ([UInt8](request.body), [:])
            let parts = try Self.split(isMultipart ? try Self.json(text, what: "the first multipart part") : try request.json())
            if let bodyID = parts.id, bodyID != id { throw CouchError.badRequest("the _id in the body does not match the URL") }
            try authorize(user, id: id, body: parts.body, deleted: parts.deleted)
            let parent = parts.rev ?? request.query["rev"].flatMap(Revision.init)
            let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: (parent?.generation ?? 0) + 1,
                                                  replicated: false, followed: followed)
            let rev = try store.edit(id: id, body: stubbed.body, parent: parent, deleted: parts.deleted,
                                     attachmentData: stubbed.data, attachmentOrder: Attachments.order(inDocument: text))
            return .json(.created, ["ok": true, "id": .string(id), "rev": .string(rev.description)])
        case .delete:
            guard let text = request.query["rev"], let rev = Revision(text) else {
                throw CouchError.conflict
            }
            try authorize(user, id: id, body: .object([:]), deleted: true)
            let newRev = try store.edit(id: id, body: .object([:]), parent: rev, deleted: true)
            return .json(.ok, ["ok": true, "id": .string(id), "rev": .string(newRev.description)])
        default:
            throw CouchError.methodNotAllowed
        }
    }

    /// Viewers write nothing; users only documents signed with their own id
    /// (admins: any), and may not change or delete a document someone else owns.
    func authorize(_ user: GatewayUser, id: String, body: JSONValue, deleted: Bool) throws {
        try authorize(user, id: id, owner: body[Self.ownerKey]?.stringValue, deleted: deleted)
    }

    /// `authorize(_:id:body:deleted:)` with the body's owner already read.
    func authorize(_ user: GatewayUser, id: String, owner signer: String?, deleted: Bool) throws {
        switch user.role {
        case .admin: return
        case .viewer: throw CouchError.readOnly
        case .user: break
        }
        if !deleted {
            guard signer == user.name else {
                throw CouchError.forbidden("document \(id) must be signed with your id (\(Self.ownerKey) = \(user.name))")
            }
        }
        if let current = try store.document(id: id, includeDeleted: true),
           let owner = current.body[Self.ownerKey]?.stringValue, owner != user.name {
            throw CouchError.forbidden("document \(id) belongs to another user")
        }
    }

    /// Splits a posted document into id, revision, flags and the plain body
    /// (which keeps `_attachments`).
    static func split(_ doc: JSONValue) throws -> (id: String?, rev: Revision?, deleted: Bool, history: [Revision]?, body: JSONValue) {
        guard var object = doc.objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
        let id = object["_id"]?.stringValue
        var rev: Revision?
        if let text = object["_rev"]?.stringValue {
            guard let parsed = Revision(text) else { throw CouchError.badRequest("Invalid rev format") }
            rev = parsed
        }
        let deleted = object["_deleted"]?.boolValue ?? false
        let history = RevisionContent.history(fromRevisions: object["_revisions"])
        if object["_revisions"] != nil, history == nil { throw CouchError.badRequest("invalid _revisions") }
        for key in object.keys where key.hasPrefix("_") && key != "_attachments" { object[key] = nil }
        return (id, rev, deleted, history, .object(object))
    }

    /// `PUT ?new_edits=false`: a revision made elsewhere (CouchDB's
    /// replicator PUTs each document with attachments so, as
    /// multipart/related), stored with its text as it came
    /// (`RevisionContent.received`); text the skim does not take is parsed.
    func putReplicated(_ request: CouchRequest, id: String, user: GatewayUser, multipart: Bool) throws -> Reply {
        let (text, followed) = multipart ? try multipartDocumentText(request) : ([UInt8](request.body), [:])
        let skim = JSONSkim(text)
        var content: RevisionContent
        let owner: String?
        if let node = skim.value(in: 0..<text.count, levels: 1), let received = try receivedRevision(skim, node, followed) {
            (content, owner) = (received.content, received.value?.stringValue)
        } else {
            let parts = try Self.split(try Self.json(text, what: "the document"))
            guard let given = parts.rev else { throw CouchError.badRequest("new_edits=false needs _rev") }
            let history = parts.history.flatMap { $0.first == given ? $0 : nil } ?? [given]
            let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: 0, replicated: true,
                                                  followed: followed)
            content = RevisionContent(id: parts.id ?? id, rev: given, deleted: parts.deleted, body: stubbed.body,
                                      history: history, attachmentData: stubbed.data)
            owner = parts.body[Self.ownerKey]?.stringValue
        }
        guard content.id == id else { throw CouchError.badRequest("the _id in the body does not match the URL") }
        try authorize(user, id: id, owner: owner, deleted: content.deleted)
        try requireStubbedBytes(content)
        try store.putReplicated([content], markSynced: true)
        return .json(.created, ["ok": true, "id": .string(id), "rev": .string(content.rev.description)])
    }

    /// `GET /db/{id}`: the winner, or `rev`; with `revs`, `conflicts`,
    /// attachments inline for `attachments=true` or past `atts_since`, as
    /// CouchDB answers. The stored text goes out as it is, `_` members in front.
    func getDocument(_ request: CouchRequest, id: String) throws -> Reply {
        let revs = request.flag("revs")
        let latest = request.flag("latest")
        if let openRevs = request.query["open_revs"] {
            return try openRevisions(request, openRevs, id: id, revs: revs, latest: latest)
        }
        let stored: RevisionText?
        if let rev = try request.revisionQuery() {
            let target = latest ? (try LatestLeaves(store, id: id, asked: [rev]).leaves.first?.rev ?? rev) : rev
            stored = try store.revisionText(id: id, rev: target)
        } else {
            guard let winner = try store.leaves(id: id).first else { throw CouchError.notFound() }
            if winner.deleted { throw CouchError.notFound("deleted") }
            stored = try store.revisionText(id: id, rev: winner.rev)
        }
        guard let stored else { throw CouchError.notFound() }
        var extra = JSONObject()
        if request.flag("conflicts") {
            let conflicts = try store.conflicts(id: id)
            if !conflicts.isEmpty { extra["_conflicts"] = .array(conflicts.map { .string($0.description) }) }
        }
        let attachments = try AttachmentsAnswer(request)
        return .jsonText(.ok, try attachments.inline(store, stored).documentJSON(revisions: revs, extra: extra))
    }
}
