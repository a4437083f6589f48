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
            let (doc, followed) = isMultipart ? try multipartDocument(request) : (try request.json(), [:])
            let parts = try Self.split(doc)
            if let bodyID = parts.id, bodyID != id { throw CouchError.badRequest("the _id in the body does not match the URL") }
            try authorize(user, id: id, body: parts.body, deleted: parts.deleted)
            let rev: Revision
            if request.query["new_edits"] == "false" {
                guard let given = parts.rev else { throw CouchError.badRequest("new_edits=false needs _rev") }
                let history = parts.history.flatMap { $0.first == given ? $0 : nil } ?? [given]
                let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: given.generation, replicated: true,
                                                      followed: followed)
                try store.putReplicated([RevisionContent(id: id, rev: given, deleted: parts.deleted, body: stubbed.body,
                                                         history: history, attachmentData: stubbed.data)],
                                        markSynced: false)
                rev = given
            } else {
                let parent = parts.rev ?? request.query["rev"].flatMap(Revision.init)
                let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: (parent?.generation ?? 0) + 1,
                                                      replicated: false, followed: followed)
                rev = try store.edit(id: id, body: stubbed.body, parent: parent, deleted: parts.deleted,
                                     attachmentData: stubbed.data)
            }
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

    static func documentJSON(_ content: RevisionContent, revs: Bool) -> JSONValue {
        var object = content.body.objectValue ?? [:]
        object["_id"] = .string(content.id)
        object["_rev"] = .string(content.rev.description)
        if content.deleted { object["_deleted"] = true }
        if revs { object["_revisions"] = content.revisionsJSON }
        return .object(object)
    }

    func getDocument(_ request: CouchRequest, id: String) throws -> Reply {
        let revs = request.flag("revs")
        let latest = request.flag("latest")
        if let openRevs = request.query["open_revs"] {
            return try openRevisions(request, openRevs, id: id, revs: revs, latest: latest)
        }
        let content: RevisionContent?
        if let rev = try request.revisionQuery() {
            let target = latest ? (try store.latestLeaves(id: id, from: rev).first ?? rev) : rev
            content = try store.revision(id: id, rev: target)
        } else {
            guard let winner = try store.leaves(id: id).first else { throw CouchError.notFound() }
            if winner.deleted { throw CouchError.notFound("deleted") }
            content = try store.revision(id: id, rev: winner.rev)
        }
        guard var content else { throw CouchError.notFound() }
        if request.flag("attachments") {
            content.body = try store.inliningAttachments(of: content.body, id: id, rev: content.rev.description,
                                                         since: Self.attachmentsSince(request))
        }
        var json = Self.documentJSON(content, revs: revs)
        if request.flag("conflicts") {
            let conflicts = try store.conflicts(id: id)
            if !conflicts.isEmpty { json["_conflicts"] = .array(conflicts.map { .string($0.description) }) }
        }
        return .json(.ok, json)
    }

    /// `?open_revs=all|[…]`: the `_bulk_get` fallback peers use. CouchDB's
    /// replicator asks for `multipart/mixed` (one JSON part per revision).
    func openRevisions(_ request: CouchRequest, _ openRevs: String, id: String, revs: Bool, latest: Bool) throws -> Reply {
        var wanted: [Revision] = []
        var unknown: [String] = []
        if openRevs == "all" {
            wanted = try store.leaves(id: id).map(\.rev)
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
        let attachments = request.flag("attachments")
        let since = Self.attachmentsSince(request)
        var entries: [(ok: Bool, json: [UInt8])] = []
        for rev in wanted {
            if let stored = try store.revisionText(id: id, rev: rev) {
                entries.append((true, try Self.documentBytes(store, stored, revs: revs, attachments: attachments, since: since)))
            } else {
                entries.append((false, CanonicalJSON.bytes(["missing": .string(rev.description)])))
            }
        }
        entries += unknown.map { (false, CanonicalJSON.bytes(["missing": .string($0)])) }
        if request.headers[.accept]?.contains("multipart/mixed") == true {
            let boundary = Multipart.newBoundary()
            var out: [UInt8] = []
            for entry in entries { out += Multipart.jsonPart(entry.json, boundary: boundary) }
            out += Multipart.closing(boundary)
            return .file(Data(out), contentType: "multipart/mixed; boundary=\"\(boundary)\"")
        }
        var out = Array("[".utf8)
        for (index, entry) in entries.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += entry.ok ? Array(#"{"ok":"#.utf8) + entry.json + [UInt8(ascii: "}")] : entry.json
        }
        out.append(UInt8(ascii: "]"))
        return .jsonText(.ok, out)
    }
}
