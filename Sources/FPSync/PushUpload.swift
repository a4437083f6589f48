import FPCore
import FPNet
import Foundation

/// What every upload of one push shares.
struct PushContext: Sendable {
    var repID: String
    var session: String
    var startSeq: JSONValue
    /// Changed by one upload at a time (each waits for the one before).
    var book: RefusalBook
    var gateway: String
}

/// One prepared batch: its changes, the revisions the gateway lacks, and the
/// checkpoint that is written once they are stored there.
struct UploadJob: Sendable {
    var changes: [ChangeEntry]
    var outgoing: [RevisionText]
    /// Documents this batch signed, by id: stored once the gateway has them.
    var signed: [String: SignedRevision]
    /// Documents of this batch skipped as damaged: never marked synced.
    var damagedIDs: Set<String>
    var seq: JSONValue
    var checkpointBase: Replicator.Checkpoint?
    /// Changes examined by the push up to and with this batch.
    var examined: Int
}

/// What uploads did, one or summed.
struct UploadOutcome: Sendable {
    /// Documents the gateway stored.
    var written = 0
    /// Signed documents the gateway accepted (their signed revisions are stored).
    var signed = 0
    /// Changes dealt with (sent, already there, refused or damaged).
    var done = 0
    /// Refusals as `id: reason`.
    var rejected: [String] = []
    /// The documents refused.
    var rejectedIDs: [String] = []

    mutating func add(_ other: UploadOutcome) {
        written += other.written
        signed += other.signed
        done += other.done
        rejected += other.rejected
        rejectedIDs += other.rejectedIDs
    }
}

/// What `body` returned or threw, as a value. Each half of a sync pipeline
/// (an `async let` child and its parent) holds its error this way, so both
/// halves always end before either error is thrown, the earlier batch's first.
func outcome<T>(_ body: () async throws(SyncError) -> T) async -> Result<T, SyncError> {
    do throws(SyncError) {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

/// A batch the gateway has answered for, to be kept: the job without the
/// bodies it sent (three batches are in flight), and what was refused.
struct SentBatch: Sendable {
    var job: UploadJob
    var sentIDs: Set<String>
    var rejected: [Replicator.Rejection]
}

extension Replicator {
    /// Sends one batch (nothing in a dry run); what the gateway refused.
    func sendBatch(_ job: UploadJob) async throws(SyncError) -> SentBatch {
        let rejected = dryRun ? [] : try await upload(job.outgoing)
        var kept = job
        kept.outgoing = []
        return SentBatch(job: kept, sentIDs: Set(job.outgoing.map(\.id)), rejected: rejected)
    }

    /// After its upload: keeps the signed revisions the gateway accepted,
    /// marks what it stored as synced, records its refusals and writes the
    /// batch's checkpoint on both sides.
    func keepBatch(_ sent: SentBatch, _ context: PushContext, writtenBefore: Int) async throws(SyncError)
        -> UploadOutcome
    {
        let job = sent.job
        var outcome = UploadOutcome()
        let rejectedIDs = Set(sent.rejected.map(\.id))
        if dryRun {
            outcome.signed = job.signed.count
        } else {
            outcome.rejected = sent.rejected.map { "\($0.id): \($0.reason)" }
            outcome.rejectedIDs = sent.rejected.map(\.id)
            // A document is synced once the gateway has its winner; a signed
            // one's signature is kept only then (refused, it stays unsigned).
            let synced = job.changes.filter { !rejectedIDs.contains($0.id) && !job.damagedIDs.contains($0.id) }.map(\.id)
            let signed = synced.compactMap { job.signed[$0] }
            outcome.signed = signed.count
            let time = ISOTime.string(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
            // A refused signed revision is not kept: the refusal names the
            // revision here, the unsigned one it would have replaced.
            let refusals = sent.rejected.map { refused in
                let signed = job.signed[refused.id].flatMap { $0.rev.description == refused.rev ? $0 : nil }
                let here = signed?.revision.history.dropFirst().first?.description ?? refused.rev
                return Refusal(id: refused.id, rev: here, gateway: context.gateway, reason: refused.reason, time: time)
            }
            try await storeWork { [self] in
                try keepSigned(signed, synced: synced)
                try context.book.update(refused: refusals, accepted: synced)
            }
        }
        outcome.written = sent.sentIDs.subtracting(rejectedIDs).count
        outcome.done = job.changes.count
        var counts = SyncReport(direction: .push)
        counts.examined = job.examined
        counts.written = writtenBefore + outcome.written
        try await writeCheckpoint(context.repID, session: context.session, startSeq: context.startSeq, seq: job.seq,
                                  previous: job.checkpointBase, report: counts)
        return outcome
    }

    struct Rejection: Sendable {
        var id: String
        var rev: String
        var reason: String
    }

    /// `_bulk_docs` with `new_edits:false` and `_revisions` on every document,
    /// in batches bounded by count and bytes. A 413 halves the batch. Bodies
    /// go out as stored (canonical text with the `_` members spliced in).
    func upload(_ revisions: [RevisionText]) async throws(SyncError) -> [Rejection] {
        var rejected: [Rejection] = []
        // Each document's text is made as its request is built, so one
        // request's worth is held beside the batch, not a copy of all of it.
        var queue = ArraySlice(revisions)
        var maxCount = limits.count
        while !queue.isEmpty {
            var body = Data(#"{"new_edits":false,"docs":["#.utf8)
            var count = 0
            for item in queue.prefix(maxCount) {
                let doc = item.documentJSON(revisions: true)
                if count > 0 && body.count + doc.count > limits.bytes { break }
                if count > 0 { body.append(UInt8(ascii: ",")) }
                body.append(contentsOf: doc)
                count += 1
            }
            body.append(contentsOf: "]}".utf8)
            let response = try await remote.send(.post, ["_bulk_docs"], jsonText: body)
            if response.status == 413 {
                guard count > 1 else {
                    rejected.append(Rejection(id: queue.first?.id ?? "?", rev: queue.first?.rev.description ?? "",
                                              reason: "HTTP 413 " + Self.refusalReason(response, id: queue.first?.id)))
                    queue = queue.dropFirst()
                    continue
                }
                maxCount = max(1, count / 2)
                continue
            }
            if response.status == 403 {
                // Refused as a whole (a viewer's credentials): say which documents stay unsent.
                let ids = queue.prefix(count).map(\.id)
                let named = ids.prefix(3).joined(separator: ", ") + (ids.count > 3 ? ", …" : "")
                throw SyncError.authRejected("\(remote.describe(.post, remote.makeURL(["_bulk_docs"]))) answered 403: "
                    + "\(RemoteDatabase.reason(response)); refused: \(named) (\(ids.count) in this batch, left unsynced and unsigned)")
            }
            try remote.require(response, .post, ["_bulk_docs"])
            // CouchDB answers [] for new_edits:false; Sync Gateway one entry
            // per document, errors (per-document 403s) among them.
            let answer = try RemoteDatabase.parse(response.body, what: "_bulk_docs")
            guard let entries = answer.arrayValue else { throw SyncError.protocolError("_bulk_docs: not an array") }
            let sentRevs = Dictionary(queue.prefix(count).map { ($0.id, $0.rev.description) },
                                      uniquingKeysWith: { first, _ in first })
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
