import Crypto
import FPCore
import FPHex
import FPNet
import Foundation

/// Limits of one batch: by document count and by encoded bytes.
package struct BatchLimits: Sendable {
    /// Changes read per batch at most.
    package var count: Int
    /// The largest `_bulk_docs` request body.
    package var bytes: Int
    /// About how much revision text a push batch holds: three batches are
    /// in flight, each with its text (and its signed copy), so large
    /// documents make batches of fewer changes.
    package var batchBytes: Int
    package init(count: Int = 500, bytes: Int = 4 << 20, batchBytes: Int = 2 << 20) {
        self.count = max(1, count)
        self.bytes = max(1024, bytes)
        self.batchBytes = max(1024, batchBytes)
    }
}

package enum SyncDirection: String, Sendable {
    case push, pull
}

/// Progress of one direction: changed documents examined of the total
/// known so far, and how many of them actually moved (the rest the other
/// side already had: a pull right after a push receives nothing).
package struct SyncProgress: Sendable, Equatable {
    package var direction: SyncDirection
    package var done: Int
    package var total: Int
    package var transferred: Int
    /// Push: documents the gateway refused (neither moved nor already there).
    package var refused: Int

    package init(direction: SyncDirection, done: Int, total: Int, transferred: Int = 0, refused: Int = 0) {
        self.direction = direction
        self.done = done
        self.total = total
        self.transferred = transferred
        self.refused = refused
    }

    /// Examined documents the other side already had.
    package var alreadyThere: Int { max(0, done - transferred - refused) }
}

/// What one direction did.
package struct SyncReport: Sendable, Equatable {
    package var direction: SyncDirection
    /// Documents written to the target (one per document, however many leaves).
    package var written: Int = 0
    /// Changes examined on the source.
    package var examined: Int = 0
    /// Pull: design documents met on the source and skipped (never stored,
    /// not counted as examined).
    package var skipped: Int = 0
    /// Revisions the target refused in this run, as `id: reason`.
    package var rejected: [String] = []
    /// Push: every document this gateway refuses, after this run (older ones
    /// retried and refused again included). They stay unsynced.
    package var refusals: [Refusal] = []
    /// Documents signed with the user's id and accepted by the gateway (a
    /// dry run: those that would be signed).
    package var signed: Int = 0
    /// Push: local documents whose stored body is damaged; skipped, left unsynced.
    package var damaged: [DamagedDocument] = []
    package var checkpoint: String = ""
}

/// A one-shot CouchDB replication between the local store and one remote
/// database, in either direction (the protocol's replicator algorithm:
/// checkpoints, `_changes`, `_revs_diff`, fetch, `_bulk_docs new_edits:false`).
package struct Replicator: Sendable {
    package let store: any ReplicableStore
    package let remote: RemoteDatabase
    package var limits: BatchLimits
    package var userID: String?
    package var dryRun: Bool
    package var progress: @Sendable (SyncProgress) -> Void

    package static let ownerKey = MeasurementDocument.ownerKey
    static let unsigned = MeasurementDocument.unsignedOwner

    package init(store: any ReplicableStore, remote: RemoteDatabase, limits: BatchLimits = BatchLimits(),
                userID: String?, dryRun: Bool = false, progress: @escaping @Sendable (SyncProgress) -> Void = { _ in }) {
        self.store = store
        self.remote = remote
        self.limits = limits
        self.userID = userID
        self.dryRun = dryRun
        self.progress = progress
    }

    /// The replication id: this database's random UUID, the remote URL
    /// (without credentials) and the direction. Never the token, so a new
    /// token keeps the checkpoints; a wiped database gets a new UUID and
    /// starts afresh.
    package func replicationID(_ direction: SyncDirection) async throws(SyncError) -> String {
        let store = store
        let uuid = try await storeWork { try store.databaseUUID() }
        return Self.replicationID(uuid: uuid, remote: remote.displayURL, direction)
    }

    static func replicationID(uuid: String, remote: String, _ direction: SyncDirection) -> String {
        let input = "fprint-replication-v1|\(uuid)|\(remote)|\(direction.rawValue)"
        return Hex.string(Insecure.MD5.hash(data: Array(input.utf8)))
    }

    // MARK: - Checkpoints

    /// The CouchDB checkpoint shape: `session_id`, `source_last_seq` and a
    /// `history` of sessions, so two sides that disagree can find the
    /// last sequence both recorded.
    struct Checkpoint: Sendable {
        var sessionID: String
        var lastSeq: JSONValue
        var history: [JSONValue]

        init?(_ value: JSONValue?) {
            guard let value, let session = value["session_id"]?.stringValue, let seq = value["source_last_seq"] else {
                return nil
            }
            sessionID = session
            lastSeq = seq
            history = value["history"]?.arrayValue ?? []
        }

        init(sessionID: String, lastSeq: JSONValue, history: [JSONValue]) {
            self.sessionID = sessionID
            self.lastSeq = lastSeq
            self.history = history
        }

        var json: JSONValue {
            ["session_id": .string(sessionID), "source_last_seq": lastSeq, "history": .array(history),
             "replication_id_version": 4, "replicator": "fprint"]
        }
    }

    /// Where a replication with these two checkpoint documents resumes (nil: from the start).
    package static func resumeSequence(local: JSONValue?, remote: JSONValue?) -> JSONValue? {
        startSequence(local: Checkpoint(local), remote: Checkpoint(remote))
    }

    /// The sequence to start from: where both checkpoints agree, else the beginning.
    static func startSequence(local: Checkpoint?, remote: Checkpoint?) -> JSONValue? {
        guard let local, let remote else { return nil }
        if local.sessionID == remote.sessionID { return local.lastSeq }
        // Different last sessions: the newest session both histories know.
        let remoteSessions = Dictionary(remote.history.compactMap { entry -> (String, JSONValue)? in
            guard let s = entry["session_id"]?.stringValue, let seq = entry["recorded_seq"] else { return nil }
            return (s, seq)
        }, uniquingKeysWith: { first, _ in first })
        for entry in local.history {
            if let session = entry["session_id"]?.stringValue, let seq = entry["recorded_seq"],
               remoteSessions[session] == seq {
                return seq
            }
        }
        return nil
    }

    /// Both checkpoints of a direction: those `open` read, else read now.
    func checkpoints(_ direction: SyncDirection, opened: CheckpointPair?) async throws(SyncError) -> CheckpointPair {
        if let opened { return opened }
        let repID = try await replicationID(direction)
        let store = store
        let local = Checkpoint(try await storeWork { try store.localDocument(id: repID) })
        return CheckpointPair(repID: repID, local: local, remote: try await remoteCheckpoint(repID))
    }

    /// The remote side's checkpoint; nil when it has none (404).
    func remoteCheckpoint(_ repID: String) async throws(SyncError) -> Checkpoint? {
        let response = try await remote.send(.get, ["_local", repID])
        if response.status == 404 { return nil }
        try remote.require(response, .get, ["_local", repID])
        return Checkpoint(try RemoteDatabase.parse(response.body, what: "the remote checkpoint"))
    }

    /// Records the same checkpoint on both sides: remote first, so a crash
    /// between the two leaves the sides disagreeing (and the history finds
    /// the common point) rather than the local side claiming more.
    func writeCheckpoint(_ repID: String, session: String, startSeq: JSONValue, seq: JSONValue, previous: Checkpoint?,
                         report: SyncReport) async throws(SyncError) {
        guard !dryRun else { return }
        let entry: JSONValue = [
            "session_id": .string(session), "recorded_seq": seq, "start_last_seq": startSeq, "end_last_seq": seq,
            "end_time": .string(ISO8601DateFormatter().string(from: Date())),
            "docs_read": .int(Int64(report.examined)), "docs_written": .int(Int64(report.written)),
        ]
        var history = (previous?.history ?? []).filter { $0["session_id"]?.stringValue != session }
        history.insert(entry, at: 0)
        let checkpoint = Checkpoint(sessionID: session, lastSeq: seq, history: Array(history.prefix(50)))
        // CouchDB needs the current `_rev` of a `_local` doc to update it. A
        // PUT whose answer was lost (cut connection) is retried with the old
        // `_rev` and gets 409 although it was applied: read the rev again once.
        var put = try await putRemoteCheckpoint(repID, checkpoint.json)
        if put.status == 409 { put = try await putRemoteCheckpoint(repID, checkpoint.json) }
        try remote.require(put, .put, ["_local", repID])
        let store = store
        try await storeWork { try store.putLocalDocument(id: repID, body: checkpoint.json) }
    }

    private func putRemoteCheckpoint(_ repID: String, _ body: JSONValue) async throws(SyncError) -> HTTPResponse {
        var remoteDoc = body
        let current = try await remote.send(.get, ["_local", repID])
        if current.status == 200, let rev = (try? CanonicalJSON.parse(current.body))?["_rev"] {
            remoteDoc["_rev"] = rev
        }
        return try await remote.send(.put, ["_local", repID], json: remoteDoc)
    }

    static func newSessionID() -> String {
        // 128 random bits in CouchDB's form (32 lower-case hex digits).
        Hex.string((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }
}
