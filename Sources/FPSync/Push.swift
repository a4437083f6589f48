import FPCore
import FPNet
import Foundation

extension Replicator {
    /// Signs the unsigned documents (`couchbase_sync_gateway_id` = "-") among
    /// `changes` with the user's id, as new local revisions, as the iOS app
    /// did before uploading; a transaction per 100. Returns the new revision
    /// of each document it signed, as text, so the push sends it without
    /// reading it back. A document edited meanwhile is
    /// skipped: it stays unsigned, the gateway refuses it, and the next sync
    /// signs it. Without a user id an unsigned document stops the push:
    /// nothing is ever pushed without a signer.
    func signUnsigned(_ changes: [ChangeEntry], damaged: inout [DamagedDocument]) throws(SyncError) -> [String: RevisionText] {
        var signed: [String: RevisionText] = [:]
        var updates: [DocumentUpdate] = []
        // The signed text and the history it extends, by id, until stored.
        var pending: [String: (text: [UInt8], history: [Revision])] = [:]
        func flush() throws(SyncError) {
            defer {
                updates.removeAll(keepingCapacity: true)
                pending.removeAll(keepingCapacity: true)
            }
            guard !updates.isEmpty, !dryRun else { return }
            let batch = updates
            for applied in try storeCall({ try store.updateWhereCurrent(batch) }) {
                guard let (text, history) = pending[applied.id] else { continue }
                signed[applied.id] = RevisionText(id: applied.id, rev: applied.rev, deleted: false,
                                                  history: [applied.rev] + history,
                                                  canonicalBody: String(decoding: text, as: UTF8.self))
            }
        }
        for entry in changes where !entry.deleted {
            guard let stored = try storeRead(&damaged, { try store.revisionText(id: entry.id, rev: entry.rev) }) else { continue }
            // The stored text with the signer's value changed in place: no parse, no rewrite.
            guard let signing = Self.ownerValue(in: stored) else {
                let damage = DamagedDocument(id: entry.id, rev: entry.rev.description, reason: "it is not a JSON object")
                if !damaged.contains(damage) { damaged.append(damage) }
                continue
            }
            guard let owner = signing.owner, signing.body[owner].elementsEqual(Self.unsignedText) else { continue }
            guard let userID, !userID.isEmpty else { throw SyncError.noSigner(entry.id) }
            var text = Array(signing.body[..<owner.lowerBound])
            CanonicalJSON.write(.string(userID), into: &text)
            text += signing.body[owner.upperBound...]
            updates.append(DocumentUpdate(id: entry.id, canonicalBody: text, expected: entry.rev))
            pending[entry.id] = (text, stored.history)
            if updates.count == 100 { try flush() }
        }
        try flush()
        return signed
    }

    /// `"-"` as canonical text: the value of an unsigned document's owner.
    static let unsignedText = CanonicalJSON.bytes(.string(unsigned))

    /// A stored body and where its owner's value sits in it (nil when it
    /// has no owner); nil when the body is not an object.
    static func ownerValue(in stored: RevisionText) -> (body: [UInt8], owner: Range<Int>?)? {
        let body = Array(stored.canonicalBody.utf8)
        guard let members = JSONSkim(body).shallowMembers(of: 0..<body.count) else { return nil }
        return (body, members.first { $0.key == ownerKey }?.value)
    }

    /// The changes of documents this gateway refused before and whose
    /// change the checkpoint has passed: offered again in the first batch.
    func refusedChanges(_ ids: [String], since: Int64, damaged: inout [DamagedDocument]) throws(SyncError) -> [ChangeEntry] {
        var entries: [ChangeEntry] = []
        for id in ids {
            guard let doc = try storeRead(&damaged, { try store.document(id: id, includeDeleted: true) }),
                  doc.seq <= since else { continue }
            let leaves = try storeCall { try store.leaves(id: id) }.map(\.rev)
            entries.append(ChangeEntry(seq: doc.seq, id: id, rev: doc.rev, deleted: doc.deleted,
                                       leaves: [doc.rev] + leaves.filter { $0 != doc.rev }))
        }
        return entries
    }

    /// Local → remote, as a two-stage pipeline: this thread reads a batch of
    /// changes, signs what is unsigned, asks `_revs_diff` and reads the
    /// missing revisions, while an upload thread sends the previous batch,
    /// marks it synced and writes its checkpoint. One batch is in flight at a
    /// time, so checkpoints are written in order and never pass a batch the
    /// gateway has not stored. Documents the gateway refuses stay unsynced
    /// and are recorded (`RefusalLog`); the checkpoint moves on and every
    /// later push offers them again first.
    public func push() throws(SyncError) -> SyncReport {
        var report = SyncReport(direction: .push)
        let repID = try replicationID(.push)
        let (localCheckpoint, remoteCheckpoint) = try readCheckpoints(repID)
        let startValue = Self.startSequence(local: localCheckpoint, remote: remoteCheckpoint)
        var since = startValue?.intValue ?? 0
        let session = Self.newSessionID()
        let book = try storeCall { try RefusalBook(log: RefusalLog(store: store), gateway: remote.displayURL) }
        // A damaged document is skipped, named and left unsynced; the
        // checkpoint stops before it, so every later sync offers it again.
        var damaged: [DamagedDocument] = []
        var retry = try refusedChanges(book.refusedIDs, since: since, damaged: &damaged)
        // Each changed document once; a signed one is counted when its signed revision goes.
        let total = try storeCall { try store.changeCount(since: since) } + retry.count
        progress(SyncProgress(direction: .push, done: 0, total: total))
        let uploads = SerialStage()
        defer { uploads.drain() }
        let tally = PushTally()
        var previous = localCheckpoint
        // Signing gives a document a new revision at the end of the feed. It
        // goes in the batch that signed it; met again there, it is skipped.
        var sentSigned: [String: Revision] = [:]
        var holdAt: Int64?
        while true {
            let fromFeed = try storeCall { try store.changeFeed(since: since, limit: limits.count) }
            var feed = fromFeed
            if !retry.isEmpty {
                let inFeed = Set(fromFeed.map(\.id))
                feed = retry.filter { !inFeed.contains($0.id) } + fromFeed
                retry = []
            }
            guard !feed.isEmpty else { break }
            let unsent = feed.filter { sentSigned[$0.id] != $0.rev }
            let damagedBefore = damaged.count
            let signed = try signUnsigned(unsent, damaged: &damaged)
            report.signed += signed.count
            let changes = unsent.map { entry in
                guard let rev = signed[entry.id]?.rev else { return entry }
                sentSigned[entry.id] = rev
                return ChangeEntry(seq: entry.seq, id: entry.id, rev: rev, deleted: false,
                                   leaves: [rev] + entry.leaves.filter { $0 != entry.rev })
            }
            report.examined += changes.count

            // Ask the target which leaves it lacks.
            var outgoing: [RevisionText] = []
            if !changes.isEmpty {
                var asked: JSONObject = [:]
                for change in changes { asked[change.id] = .array(change.leaves.map { .string($0.description) }) }
                let diff = try remote.json(.post, ["_revs_diff"], body: .object(asked))
                guard let diffObject = diff.objectValue else { throw SyncError.protocolError("_revs_diff: not an object") }
                for change in changes {
                    guard let missing = diffObject[change.id]?["missing"]?.arrayValue else { continue }
                    for text in missing.compactMap(\.stringValue) {
                        guard let rev = Revision(text),
                              let content = try storeRead(&damaged, {
                                  // A revision just signed is at hand; others are read. The target
                                  // gets attachment bytes inline: it may have none of them.
                                  let stored = try signed[change.id].flatMap { $0.rev == rev ? $0 : nil }
                                      ?? store.revisionText(id: change.id, rev: rev)
                                  return try stored.map { try store.inliningAttachments($0) }
                              })
                        else { continue }
                        outgoing.append(content)
                    }
                }
            }
            let damagedIDs = Set(damaged[damagedBefore...].map(\.id))
            if let first = fromFeed.first(where: { damagedIDs.contains($0.id) }), holdAt == nil {
                holdAt = first.seq - 1
            }
            outgoing.removeAll { damagedIDs.contains($0.id) }
            since = fromFeed.last?.seq ?? since
            let seq = JSONValue.int(holdAt ?? since)
            let checkpointBase = previous
            let examined = report.examined
            let sending = outgoing
            let gateway = remote.displayURL
            try uploads.submit { () throws(SyncError) in
                var rejectedIDs = Set<String>()
                if !dryRun {
                    let rejected = try upload(sending)
                    tally.rejected += rejected.map { "\($0.id): \($0.reason)" }
                    rejectedIDs = Set(rejected.map(\.id))
                    // A document is synced once the gateway has its winner.
                    let synced = changes.filter { !rejectedIDs.contains($0.id) && !damagedIDs.contains($0.id) }.map(\.id)
                    let time = ISOTime.string(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
                    let refusals = rejected.map {
                        Refusal(id: $0.id, rev: $0.rev, gateway: gateway, reason: $0.reason, time: time)
                    }
                    try storeCall { try book.update(refused: refusals, accepted: synced) }
                    try storeCall { try store.markSynced(ids: synced) }
                }
                tally.written += Set(sending.map(\.id)).subtracting(rejectedIDs).count
                tally.done += changes.count
                progress(SyncProgress(direction: .push, done: tally.done, total: max(total, tally.done),
                                      transferred: tally.written))
                var counts = SyncReport(direction: .push)
                counts.examined = examined
                counts.written = tally.written
                try writeCheckpoint(repID, session: session, startSeq: startValue ?? 0, seq: seq, previous: checkpointBase,
                                    report: counts)
            }
            previous = Checkpoint(sessionID: session, lastSeq: seq, history: previous?.history ?? [])
        }
        try uploads.wait()
        report.written = tally.written
        report.rejected = tally.rejected
        report.refusals = book.current
        report.damaged = damaged
        report.checkpoint = String(holdAt ?? since)
        return report
    }

    /// A store read of one document: a damaged one is noted and gives nil.
    func storeRead<T>(_ damaged: inout [DamagedDocument], _ body: () throws -> T?) throws(SyncError) -> T? {
        do {
            return try body()
        } catch let error as DamagedDocument {
            if !damaged.contains(error) { damaged.append(error) }
            return nil
        } catch let error as StoreError {
            throw SyncError.store(error.description)
        } catch {
            throw SyncError.store("\(error)")
        }
    }

    struct Rejection {
        var id: String
        var rev: String
        var reason: String
    }

    /// `_bulk_docs` with `new_edits:false` and `_revisions` on every document,
    /// in batches bounded by count and bytes. A 413 halves the batch. Bodies
    /// go out as stored (canonical text with the `_` members spliced in).
    func upload(_ revisions: [RevisionText]) throws(SyncError) -> [Rejection] {
        var rejected: [Rejection] = []
        var queue = ArraySlice(revisions.map { (id: $0.id, rev: $0.rev.description, doc: $0.documentJSON(revisions: true)) })
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
                    rejected.append(Rejection(id: queue.first?.id ?? "?", rev: queue.first?.rev ?? "",
                                              reason: "HTTP 413 " + Self.refusalReason(response, id: queue.first?.id)))
                    queue = queue.dropFirst()
                    continue
                }
                maxCount = max(1, count / 2)
                continue
            }
            try remote.require(response, .post, ["_bulk_docs"])
            // CouchDB answers [] for new_edits:false; Sync Gateway one entry
            // per document, errors (per-document 403s) among them.
            let answer = try RemoteDatabase.parse(response.body, what: "_bulk_docs")
            guard let entries = answer.arrayValue else { throw SyncError.protocolError("_bulk_docs: not an array") }
            let sentRevs = Dictionary(queue.prefix(count).map { ($0.id, $0.rev) }, uniquingKeysWith: { first, _ in first })
            for entry in entries where entry["error"] != nil {
                let id = entry["id"]?.stringValue ?? "?"
                rejected.append(Rejection(id: id, rev: entry["rev"]?.stringValue ?? sentRevs[id] ?? "",
                                          reason: Self.refusalReason(entry)))
            }
            queue = queue.dropFirst(count)
        }
        return rejected
    }
}

extension Replicator {
    /// `error: reason` of a refusal, as the server put it (CouchDB's 413
    /// gives the document id as its reason, which says nothing more).
    static func refusalReason(_ entry: JSONValue, id: String? = nil) -> String {
        let error = entry["error"]?.stringValue ?? "refused"
        guard let reason = entry["reason"]?.stringValue, !reason.isEmpty, reason != id, reason != error else { return error }
        return "\(error): \(reason)"
    }

    static func refusalReason(_ response: HTTPResponse, id: String?) -> String {
        guard let answer = try? CanonicalJSON.parse(response.body) else { return "too large for the gateway" }
        return refusalReason(answer, id: id)
    }
}

/// What the upload thread counts; read by the pushing thread only after
/// `SerialStage.wait`, which orders the two.
final class PushTally: @unchecked Sendable {
    var written = 0
    var done = 0
    var rejected: [String] = []
}
