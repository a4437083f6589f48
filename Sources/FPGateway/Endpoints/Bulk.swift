import FPCore
import FPDashboard
import Foundation
import HTTPTypes

/// `_revs_diff`, `_bulk_docs` and `_bulk_get`: what replicators move
/// documents with.
extension CouchHandler {
    func revsDiff(_ body: JSONValue) throws -> JSONValue {
        guard let object = body.objectValue else { throw CouchError.badRequest("_revs_diff needs an object of id → revisions") }
        try Self.checkIDCount(object.count, "_revs_diff")
        var asked: [String: [Revision]] = [:]
        for (id, list) in object {
            try DocumentIDs.check(id, "a _revs_diff id")
            guard let array = list.arrayValue else { throw CouchError.badRequest("revisions of \(id) must be an array") }
            asked[id] = try array.map { value in
                guard let text = value.stringValue, let rev = Revision(text) else {
                    throw CouchError.badRequest("invalid revision for \(id)")
                }
                return rev
            }
        }
        let missing = try store.revsDiff(asked)
        return .object(JSONObject(missing.mapValues { ["missing": .array($0.map { .string($0.description) })] }))
    }

    func bulkDocs(_ request: CouchRequest, user: GatewayUser) throws -> JSONValue {
        let (docs, newEdits) = try BulkDocsBody.read(request)
        var results: [JSONValue] = []
        var accepted: [RevisionContent] = []
        for (index, item) in docs.enumerated() {
            // The gateway is stopping: what is done is answered, the rest is
            // refused by name (sent again, it is stored then), within the stop's grace.
            if stop.isStopping {
                for rest in docs[index...] { results.append(Self.refusal(of: rest.id ?? "", Self.stopping)) }
                break
            }
            let doc: JSONValue
            switch item {
            case .received(let content, let owner):
                // A replicator's revision: stored as the text it came as, unparsed.
                do {
                    try authorize(user, id: content.id, owner: owner, deleted: content.deleted)
                    try requireStubbedBytes(content)
                    accepted.append(content)
                } catch let error as CouchError {
                    results.append(Self.refusal(of: content.id, error))
                } catch let error as StoreError {
                    results.append(Self.refusal(of: content.id, .from(error)))
                }
                continue
            case .refused(let id, let error):
                results.append(Self.refusal(of: id, error))
                continue
            case .parsed(let value): doc = value
            }
            let parts = try Self.split(doc)
            guard let id = parts.id, !id.isEmpty else {
                if newEdits { results.append(["error": "bad_request", "reason": "a document id is required"]); continue }
                throw CouchError.badRequest("every document needs an _id with new_edits:false")
            }
            do {
                try authorize(user, id: id, body: parts.body, deleted: parts.deleted)
                if newEdits {
                    let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: (parts.rev?.generation ?? 0) + 1,
                                                          replicated: false)
                    let rev = try store.edit(id: id, body: stubbed.body, parent: parts.rev, deleted: parts.deleted,
                                             attachmentData: stubbed.data)
                    results.append(["ok": true, "id": .string(id), "rev": .string(rev.description)])
                } else {
                    guard let rev = parts.rev else { throw CouchError.badRequest("new_edits:false needs _rev") }
                    var history = parts.history ?? [rev]
                    if history.first != rev { history = [rev] }
                    let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: rev.generation, replicated: true)
                    accepted.append(RevisionContent(id: id, rev: rev, deleted: parts.deleted, body: stubbed.body,
                                                    history: history, attachmentData: stubbed.data))
                }
            } catch let error as CouchError {
                results.append(Self.refusal(of: id, error))
            } catch let error as StoreError {
                results.append(Self.refusal(of: id, .from(error)))
            }
        }
        // Replicated revisions are stored a batch a transaction, as received
        // from a peer (synced: a later `fprint sync` of this database never
        // signs them); a stop between batches answers which were stored and refuses the rest.
        var start = accepted.startIndex
        while start < accepted.endIndex {
            let batch = accepted[start..<min(start + Self.replicatedBatch, accepted.endIndex)]
            if stop.isStopping {
                for content in accepted[start...] { results.append(Self.refusal(of: content.id, Self.stopping)) }
                break
            }
            try store.putReplicated(Array(batch), markSynced: true)
            start = batch.endIndex
        }
        return .array(results)
    }

    /// Replicated revisions stored per transaction.
    static let replicatedBatch = 250

    /// Why a document of a write in flight when the gateway stopped was not stored.
    static let stopping = CouchError(status: .serviceUnavailable, error: "service_unavailable",
                                     reason: "the gateway is stopping; this document was not stored, send it again")

    /// A `_bulk_docs` answer entry for a document refused on its own.
    static func refusal(of id: String, _ error: CouchError) -> JSONValue {
        ["id": .string(id), "error": .string(error.error), "reason": .string(error.reason)]
    }

    /// `{"results":[{"id","docs":[{"ok":doc}|{"error":…}]}]}`, streamed: each
    /// revision goes out as stored text, never parsed, one at a time. Asked
    /// with `Accept: multipart/mixed`, one part per revision instead, as Sync
    /// Gateway answers: `application/json` for a document (attachments
    /// inline), `application/json; error="true"` for what is missing.
    func bulkGet(_ body: JSONValue, revs: Bool, latest: Bool, attachments: Bool, multipart: Bool) throws -> Reply {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        try Self.checkIDCount(docs.count, "_bulk_get docs")
        let items: [(id: String, rev: String?)] = try docs.map { item in
            guard let id = item["id"]?.stringValue else { throw CouchError.badRequest("every _bulk_get entry needs an id") }
            return (id, item["rev"]?.stringValue)
        }
        let store = self.store
        let answers: @Sendable ((id: String, rev: String?)) throws -> [BulkGetAnswer] = { item in
            try Self.bulkGetAnswers(store, id: item.id, rev: item.rev, revs: revs, latest: latest, attachments: attachments)
        }
        guard multipart else {
            return .stream(.ok) { out in
                try await out.append(#"{"results":["#)
                try await out.appendRows(items) { item in Self.jsonEntry(id: item.id, try answers(item)) }
                try await out.append("]}")
            }
        }
        let boundary = Multipart.newBoundary()
        return .stream(.ok, contentType: "multipart/mixed; boundary=\"\(boundary)\"") { out in
            try await RowBatch.forEach(items, { item in Self.multipartEntry(try answers(item), boundary: boundary) }) {
                _, parts in try await out.append(parts)
            }
            try await out.append(Multipart.closing(boundary))
        }
    }

    /// One revision `_bulk_get` was asked for: its stored text, or why not.
    enum BulkGetAnswer {
        case document([UInt8])
        /// `{"id","rev","error","reason"}`.
        case error(JSONValue)
    }

    private static func bulkGetAnswers(_ store: any ReplicableStore, id: String, rev text: String?, revs: Bool,
                                       latest: Bool, attachments: Bool) throws -> [BulkGetAnswer] {
        func missing(_ rev: String) -> BulkGetAnswer {
            .error(["id": .string(id), "rev": .string(rev), "error": "not_found", "reason": "missing"])
        }
        var wanted: [Revision] = []
        var missingText: String?
        if let text {
            if let rev = Revision(text) {
                wanted = latest ? try store.latestLeaves(id: id, from: rev) : [rev]
                if wanted.isEmpty { missingText = text }
            } else {
                missingText = text
            }
        } else if let winner = try store.leaves(id: id).first {
            wanted = [winner.rev]
        }
        if wanted.isEmpty { return [missing(missingText ?? "undefined")] }
        return try wanted.map { rev in
            do {
                guard let stored = try store.revisionText(id: id, rev: rev) else { return missing(rev.description) }
                return .document(try documentBytes(store, stored, revs: revs, attachments: attachments))
            } catch let damage as DamagedDocument {
                // One unreadable revision costs its own entry, not the answer.
                return .error(CouchError.damagedEntry(damage))
            }
        }
    }

    /// `{"id":…,"docs":[{"ok":…}|{"error":…}]}`.
    private static func jsonEntry(id: String, _ answers: [BulkGetAnswer]) -> [UInt8] {
        var out = Array(#"{"id":"#.utf8)
        CanonicalJSON.write(.string(id), into: &out)
        out += Array(#","docs":["#.utf8)
        for (n, answer) in answers.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            switch answer {
            case .document(let text):
                out += Array(#"{"ok":"#.utf8)
                out += text
                out.append(UInt8(ascii: "}"))
            case .error(let error):
                CanonicalJSON.write(["error": error], into: &out)
            }
        }
        out += Array("]}".utf8)
        return out
    }

    /// A part per answer; an error part carries its HTTP status, as Sync Gateway's do.
    private static func multipartEntry(_ answers: [BulkGetAnswer], boundary: String) -> [UInt8] {
        answers.flatMap { answer -> [UInt8] in
            switch answer {
            case .document(let text):
                return Multipart.jsonPart(text, boundary: boundary)
            case .error(var error):
                error["status"] = error["error"]?.stringValue == "not_found" ? 404 : 500
                return Multipart.jsonPart(CanonicalJSON.bytes(error), boundary: boundary, error: true)
            }
        }
    }
}
