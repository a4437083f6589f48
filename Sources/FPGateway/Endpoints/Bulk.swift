import FPCore
import FPDashboard
import Foundation
import HTTPTypes

/// `_revs_diff` and `_bulk_docs`: what replicators move documents with
/// (with `_bulk_get`, `BulkGet.swift`).
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
            let doc: JSONValue, order: [String]
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
            case .parsed(let value, let attachmentOrder): (doc, order) = (value, attachmentOrder)
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
                                             attachmentData: stubbed.data, attachmentOrder: order)
                    results.append(["ok": true, "id": .string(id), "rev": .string(rev.description)])
                } else {
                    guard let rev = parts.rev else { throw CouchError.badRequest("new_edits:false needs _rev") }
                    var history = parts.history ?? [rev]
                    if history.first != rev { history = [rev] }
                    let stubbed = try stubbingAttachments(id: id, body: parts.body, revpos: 0, replicated: true)
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
}
