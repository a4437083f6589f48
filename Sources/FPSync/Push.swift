import FPCore
import FPNet
import Foundation

extension Replicator {
    /// Signs unsigned local documents (`couchbase_sync_gateway_id` = "-")
    /// with the user's id, each as a new local revision, as the iOS app did
    /// before uploading. Returns how many were signed. Only documents changed
    /// after `since` (the push checkpoint) can be unsigned: older ones were
    /// pushed, hence signed, so a no-op sync does not read every body.
    public func signUnsignedDocuments(since start: Int64 = 0) throws(SyncError) -> Int {
        guard let userID, !dryRun else { return 0 }
        var signed = 0
        var since = start
        // Signing appends changes; those need no second look.
        let end = try storeCall { try store.lastSequence() }
        while since < end {
            let batch = try storeCall { try store.changeFeed(since: since, limit: 1000) }.filter { $0.seq <= end }
            guard let last = batch.last else { break }
            since = last.seq
            var updates: [DocumentUpdate] = []
            for entry in batch where !entry.deleted {
                guard let doc = try storeCall({ try store.document(id: entry.id, includeDeleted: false) }),
                      doc.body[Self.ownerKey]?.stringValue == Self.unsigned else { continue }
                var body = doc.body
                body[Self.ownerKey] = .string(userID)
                updates.append(DocumentUpdate(id: doc.id, body: body, expected: doc.rev))
            }
            // One transaction per batch. A document edited meanwhile is
            // skipped: it stays unsigned, the gateway refuses it, and the
            // next sync signs it.
            signed += try storeCall { try store.updateWhereCurrent(updates) }.count
        }
        return signed
    }

    /// Local → remote.
    public func push() throws(SyncError) -> SyncReport {
        var report = SyncReport(direction: .push)
        let repID = try replicationID(.push)
        let (localCheckpoint, remoteCheckpoint) = try readCheckpoints(repID)
        let startValue = Self.startSequence(local: localCheckpoint, remote: remoteCheckpoint)
        var since = startValue?.intValue ?? 0
        report.signed = try signUnsignedDocuments(since: since)
        let session = Self.newSessionID()
        let total = try storeCall { try store.changeCount(since: since) }
        var done = 0
        progress(SyncProgress(direction: .push, done: 0, total: total))
        var previous = localCheckpoint
        while true {
            let changes = try storeCall { try store.changeFeed(since: since, limit: limits.count) }
            guard let last = changes.last else { break }
            report.examined += changes.count

            // Ask the target which leaves it lacks.
            var asked: JSONObject = [:]
            for change in changes { asked[change.id] = .array(change.leaves.map { .string($0.description) }) }
            let diff = try remote.json(.post, ["_revs_diff"], body: .object(asked))
            guard let diffObject = diff.objectValue else { throw SyncError.protocolError("_revs_diff: not an object") }

            var outgoing: [RevisionText] = []
            for change in changes {
                guard let missing = diffObject[change.id]?["missing"]?.arrayValue else { continue }
                for text in missing.compactMap(\.stringValue) {
                    guard let rev = Revision(text),
                          let content = try storeCall({ try store.revisionText(id: change.id, rev: rev) }) else { continue }
                    outgoing.append(content)
                }
            }
            var rejectedIDs = Set<String>()
            if !dryRun {
                let rejected = try upload(outgoing)
                report.rejected += rejected.map { "\($0.id): \($0.reason)" }
                rejectedIDs = Set(rejected.map(\.id))
                // A document is synced once the gateway has its winner.
                let synced = changes.filter { !rejectedIDs.contains($0.id) }.map(\.id)
                try storeCall { try store.markSynced(ids: synced) }
            }
            report.written += outgoing.filter { !rejectedIDs.contains($0.id) }.count
            done += changes.count
            progress(SyncProgress(direction: .push, done: done, total: max(total, done)))
            since = last.seq
            let seq = JSONValue.int(since)
            try writeCheckpoint(repID, session: session, startSeq: startValue ?? 0, seq: seq, previous: previous,
                                report: report)
            previous = Checkpoint(sessionID: session, lastSeq: seq, history: previous?.history ?? [])
        }
        report.checkpoint = String(since)
        return report
    }

    struct Rejection {
        var id: String
        var reason: String
    }

    /// `_bulk_docs` with `new_edits:false` and `_revisions` on every document,
    /// in batches bounded by count and bytes. A 413 halves the batch. Bodies
    /// go out as stored (canonical text with the `_` members spliced in).
    func upload(_ revisions: [RevisionText]) throws(SyncError) -> [Rejection] {
        var rejected: [Rejection] = []
        var queue = ArraySlice(revisions.map { (id: $0.id, doc: Array($0.documentJSON(revisions: true).utf8)) })
        var maxCount = limits.count
        while !queue.isEmpty {
            var body = Array(#"{"new_edits":false,"docs":["#.utf8)
            var count = 0
            for item in queue.prefix(maxCount) {
                if count > 0 && body.count + item.doc.count > limits.bytes { break }
                if count > 0 { body.append(UInt8(ascii: ",")) }
                body += item.doc
                count += 1
            }
            body += Array("]}".utf8)
            let response = try remote.send(.post, ["_bulk_docs"], jsonText: Data(body))
            if response.status == 413 {
                guard count > 1 else {
                    rejected.append(Rejection(id: queue.first?.id ?? "?", reason: "too large for the gateway"))
                    queue = queue.dropFirst()
                    continue
                }
                maxCount = max(1, count / 2)
                continue
            }
            try RemoteDatabase.require(response, .post, ["_bulk_docs"])
            // CouchDB answers [] for new_edits:false; Sync Gateway one entry
            // per document, errors (per-document 403s) among them.
            let answer = try RemoteDatabase.parse(response.body, what: "_bulk_docs")
            guard let entries = answer.arrayValue else { throw SyncError.protocolError("_bulk_docs: not an array") }
            for entry in entries where entry["error"] != nil {
                rejected.append(Rejection(id: entry["id"]?.stringValue ?? "?",
                                          reason: entry["reason"]?.stringValue ?? entry["error"]?.stringValue ?? "error"))
            }
            queue = queue.dropFirst(count)
        }
        return rejected
    }
}
