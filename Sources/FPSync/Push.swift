import FPCore
import FPNet
import Foundation

extension Replicator {
    /// The changes of documents this gateway refused before and whose
    /// change the checkpoint has passed: offered again in the first batch.
    func refusedChanges(_ ids: [String], since: Int64, damaged: inout [DamagedDocument]) throws -> [ChangeEntry] {
        var entries: [ChangeEntry] = []
        for id in ids {
            guard let doc = try storeRead(&damaged, { try store.document(id: id, includeDeleted: true) }),
                  doc.seq <= since else { continue }
            let leaves = try store.leaves(id: id).map(\.rev)
            entries.append(ChangeEntry(seq: doc.seq, id: id, rev: doc.rev, deleted: doc.deleted,
                                       leaves: [doc.rev] + leaves.filter { $0 != doc.rev }))
        }
        return entries
    }

    /// A store read of one document: a damaged one is noted and gives nil.
    func storeRead<T>(_ damaged: inout [DamagedDocument], _ body: () throws -> T?) throws -> T? {
        do {
            return try body()
        } catch let error as DamagedDocument {
            if !damaged.contains(error) { damaged.append(error) }
            return nil
        }
    }
}

/// Where the push's reading side stands between batches.
struct PushCursor {
    let session: String
    var since: Int64
    /// Refused documents to offer again, in the first batch.
    var retry: [ChangeEntry]
    /// A signed revision is stored once its batch is accepted, which puts
    /// it at the end of the feed; met there again, it is skipped.
    var sentSigned: [String: Revision] = [:]
    /// The checkpoint stops before the first damaged document.
    var holdAt: Int64?
    var damaged: [DamagedDocument]
    var examined = 0
    /// The checkpoint the next upload extends.
    var previous: Replicator.Checkpoint?
    /// Batches prepared so far.
    var prepared = 0
    /// Revision text per document sent so far: sizes the next batch.
    var sentBytes = 0
    var sentCount = 0

    /// Changes to read for the next batch: as many as `limits` allows, and
    /// no more than about `batchBytes` of text at the documents' size so far.
    func nextLimit(_ limits: BatchLimits, first: Int) -> Int {
        let count = prepared == 0 ? min(limits.count, first) : limits.count
        guard sentCount > 0, sentBytes > 0 else { return count }
        let perDocument = max(1, sentBytes / sentCount)
        return max(1, min(count, limits.batchBytes / perDocument))
    }
}

extension Replicator {
    /// Local → remote, as a three-stage pipeline: this task reads a batch
    /// of changes, signs what is unsigned, asks `_revs_diff` and reads the
    /// missing revisions, while one child task uploads the previous batch
    /// (`sendBatch`) and another keeps the one before it: stores its signed
    /// revisions, marks it synced and writes its checkpoint (`keepBatch`).
    /// One batch is in each stage at a time, so checkpoints are written in
    /// order and never pass a batch the gateway has not stored. Documents
    /// the gateway refuses stay unsynced and are recorded (`RefusalLog`);
    /// the checkpoint moves on and every later push offers them again first.
    package func push(_ opening: SyncOpening? = nil) async throws(SyncError) -> SyncReport {
        let pair = try await checkpoints(.push, opened: opening?.push)
        let (repID, localCheckpoint, remoteCheckpoint) = (pair.repID, pair.local, pair.remote)
        let startValue = Self.startSequence(local: localCheckpoint, remote: remoteCheckpoint)
        let since = startValue?.intValue ?? 0
        let gateway = remote.displayURL
        // A damaged document is skipped, named and left unsynced; the
        // checkpoint stops before it, so every later sync offers it again.
        let (book, retry, damaged, total) = try await storeWork { [self] in
            let book = try RefusalBook(log: RefusalLog(store: store), gateway: gateway)
            var damaged: [DamagedDocument] = []
            let retry = try refusedChanges(book.refusedIDs, since: since, damaged: &damaged)
            // Each changed document once; a signed one is counted when its signed revision goes.
            return (book, retry, damaged, try store.changeCount(since: since) + retry.count)
        }
        progress(SyncProgress(direction: .push, done: 0, total: total))
        let session = Self.newSessionID()
        let context = PushContext(repID: repID, session: session, startSeq: startValue ?? 0, book: book, gateway: gateway)
        var cursor = PushCursor(session: session, since: since, retry: retry, damaged: damaged, previous: localCheckpoint)
        var tally = UploadOutcome()
        var ready: UploadJob?
        var sent: SentBatch?
        while true {
            // Three batches at once: the one sent last round is kept (the
            // store, then its checkpoint) while the one prepared last round
            // goes up and this round prepares the next. The gateway works
            // while the store keeps.
            let (job, toKeep, writtenBefore) = (ready, sent, tally.written)
            async let kept = outcome { () async throws(SyncError) -> UploadOutcome? in
                guard let toKeep else { return nil }
                return try await keepBatch(toKeep, context, writtenBefore: writtenBefore)
            }
            async let uploaded = outcome { () async throws(SyncError) -> SentBatch? in
                guard let job else { return nil }
                return try await sendBatch(job)
            }
            let prepared = await outcome { () async throws(SyncError) in try await prepareBatch(&cursor) }
            // Every stage is waited for: a kept batch's checkpoint stays even
            // when a later stage failed, and the earliest batch's error comes first.
            let keptOutcome = await kept, sendOutcome = await uploaded
            let keptNow = try keptOutcome.get()
            if let keptNow {
                tally.add(keptNow)
                // A batch of signed revisions met again (skipped) moves nothing: no line.
                if keptNow.done > 0 {
                    progress(SyncProgress(direction: .push, done: tally.done, total: max(total, tally.done),
                                          transferred: tally.written, refused: Set(tally.rejectedIDs).count))
                }
            }
            sent = try sendOutcome.get()
            ready = try prepared.get()
            // Signed revisions the last keep stored are at the end of the
            // feed: one more round reads past them, so the checkpoint does too.
            if ready == nil && sent == nil && (keptNow?.signed ?? 0) == 0 { break }
        }
        var report = SyncReport(direction: .push)
        report.signed = tally.signed
        report.examined = cursor.examined
        report.written = tally.written
        report.rejected = tally.rejected
        report.refusals = book.current
        report.damaged = cursor.damaged
        report.checkpoint = String(cursor.holdAt ?? cursor.since)
        return report
    }

    /// Changes in the first batch at most: the gateway starts on them while
    /// the second is prepared.
    static let firstBatch = 100

    /// The next batch, ready to upload; nil when the feed is exhausted.
    func prepareBatch(_ cursor: inout PushCursor) async throws(SyncError) -> UploadJob? {
        let (since, retry, sentSigned, damagedBefore) = (cursor.since, cursor.retry, cursor.sentSigned, cursor.damaged)
        cursor.retry = []
        // The first batch is small, so the gateway has work sooner.
        let limit = cursor.nextLimit(limits, first: Self.firstBatch)
        cursor.prepared += 1
        // The feed and the unsigned revisions in it: one trip to the store.
        let (fromFeed, feedEnded, skippedTo, unsent, unsigned, damagedRead) = try await storeWork { [self] in
            var since = since
            var skippedTo: Int64?
            while true {
                let fromFeed = try store.changeFeed(since: since, limit: limit)
                var feed = fromFeed
                if !retry.isEmpty {
                    let inFeed = Set(fromFeed.map(\.id))
                    feed = retry.filter { !inFeed.contains($0.id) } + fromFeed
                }
                let unsent = feed.filter { sentSigned[$0.id] != $0.rev }
                // A page of revisions signed and sent by this push (stored
                // after their upload, so at the end of the feed) is read
                // past in the same trip, not one batch and checkpoint each.
                if unsent.isEmpty, let last = fromFeed.last {
                    (since, skippedTo) = (last.seq, last.seq)
                    continue
                }
                var damaged = damagedBefore
                let unsigned = try unsignedRevisions(unsent, damaged: &damaged)
                return (fromFeed, feed.isEmpty && skippedTo == nil, skippedTo, unsent, unsigned, damaged)
            }
        }
        // Signing them away from the store, which meanwhile keeps the batch before.
        let (signed, damagedNow) = try await BlockingWork.run("fprint.sync.sign") { [self] () throws(SyncError) in
            var damaged = damagedRead
            let signed = try sign(unsigned, damaged: &damaged)
            return (signed, damaged)
        }
        guard !feedEnded else { return nil }
        // A signed document goes up as its signed revision, which replaces the unsigned leaf.
        let changes = unsent.map { entry in
            guard let rev = signed[entry.id]?.rev else { return entry }
            cursor.sentSigned[entry.id] = rev
            return ChangeEntry(seq: entry.seq, id: entry.id, rev: rev, deleted: false,
                               leaves: [rev] + entry.leaves.filter { $0 != entry.rev })
        }
        cursor.examined += changes.count

        // Ask the target which leaves it lacks, then read them.
        var outgoing: [RevisionText] = []
        var damaged = damagedNow
        if !changes.isEmpty {
            var asked: JSONObject = [:]
            for change in changes { asked[change.id] = .array(change.leaves.map { .string($0.description) }) }
            let diff = try await remote.json(.post, ["_revs_diff"], body: .object(asked))
            guard let diffObject = diff.objectValue else { throw SyncError.protocolError("_revs_diff: not an object") }
            var wanted: [(id: String, rev: Revision)] = []
            for change in changes {
                guard let missing = diffObject[change.id]?["missing"]?.arrayValue else { continue }
                wanted += missing.compactMap { $0.stringValue.flatMap(Revision.init) }.map { (change.id, $0) }
            }
            let toRead = wanted
            (outgoing, damaged) = try await storeWork { [self, damaged] in
                var damaged = damaged
                var outgoing: [RevisionText] = []
                for (id, rev) in toRead {
                    guard let content = try storeRead(&damaged, {
                        // A revision just signed is at hand; others are read. The target
                        // gets attachment bytes inline: it may have none of them.
                        let stored = try signed[id].flatMap { $0.rev == rev ? $0.revision : nil }
                            ?? store.revisionText(id: id, rev: rev)
                        return try stored.map { try store.inliningAttachments($0) }
                    }) else { continue }
                    outgoing.append(content)
                }
                return (outgoing, damaged)
            }
        }
        let damagedIDs = Set(damaged[damagedBefore.count...].map(\.id))
        cursor.damaged = damaged
        if let first = fromFeed.first(where: { damagedIDs.contains($0.id) }), cursor.holdAt == nil {
            cursor.holdAt = first.seq - 1
        }
        outgoing.removeAll { damagedIDs.contains($0.id) }
        cursor.sentCount += outgoing.count
        cursor.sentBytes += outgoing.reduce(0) { $0 + $1.bodyText.utf8.count }
        cursor.since = fromFeed.last?.seq ?? skippedTo ?? cursor.since
        let seq = JSONValue.int(cursor.holdAt ?? cursor.since)
        let job = UploadJob(changes: changes, outgoing: outgoing, signed: signed, damagedIDs: damagedIDs, seq: seq,
                            checkpointBase: cursor.previous, examined: cursor.examined)
        cursor.previous = Checkpoint(sessionID: cursor.session, lastSeq: seq, history: cursor.previous?.history ?? [])
        return job
    }
}
