import FPCore
import FPNet
import Foundation

/// Both checkpoints of one direction, under its replication id.
package struct CheckpointPair: Sendable {
    let repID: String
    let local: Replicator.Checkpoint?
    let remote: Replicator.Checkpoint?
}

/// What a sync must know before it moves anything: that the remote is a
/// database we may read, and both checkpoints of each direction. Asked all
/// at once (`Replicator.open`), over as many connections, so a sync with
/// nothing to do makes three requests in one round trip instead of four
/// one after another.
package struct SyncOpening: Sendable {
    var push: CheckpointPair?
    var pull: CheckpointPair?
    /// The remote `_changes` from where the local pull checkpoint stands,
    /// asked on the guess that the remote checkpoint agrees. The pull takes
    /// it only if it starts there.
    var pullFeed: (since: JSONValue, page: JSONValue)?

    /// What the pull may still use once the push is done: a push that sent
    /// or signed anything made changes the early feed may not show.
    package func afterPush(_ report: SyncReport) -> SyncOpening {
        var next = self
        if report.written > 0 || report.signed > 0 { next.pullFeed = nil }
        return next
    }
}

extension Replicator {
    /// Reads the local side in one trip to the store, then asks each
    /// direction's remote checkpoint and (for a pull that has a checkpoint)
    /// the first `_changes` page, all at once. A URL that is not a database
    /// fails as such, whatever the other answers were.
    package func open(push: Bool, pull: Bool) async throws(SyncError) -> SyncOpening {
        let (store, shown) = (store, remote.displayURL)
        let (pushID, pullID, pushLocal, pullLocal) = try await storeWork {
            () throws -> (String, String, JSONValue?, JSONValue?) in
            let uuid = try store.databaseUUID()
            let pushID = Self.replicationID(uuid: uuid, remote: shown, .push)
            let pullID = Self.replicationID(uuid: uuid, remote: shown, .pull)
            return (pushID, pullID, push ? try store.localDocument(id: pushID) : nil,
                    pull ? try store.localDocument(id: pullID) : nil)
        }
        let guess = pull ? Checkpoint(pullLocal)?.lastSeq : nil

        async let feed = outcome { () async throws(SyncError) -> JSONValue? in
            guard let guess else { return nil }
            return try await changesPage(since: guess)
        }
        async let pushRemote = outcome { () async throws(SyncError) -> Checkpoint? in
            push ? try await remoteCheckpoint(pushID) : nil
        }
        async let pullRemote = outcome { () async throws(SyncError) -> Checkpoint? in
            pull ? try await remoteCheckpoint(pullID) : nil
        }
        // That the remote is a database we may read: a feed page in CouchDB's
        // shape says so; without one (no guess, or it failed) `GET /db` is
        // asked, and judged before the checkpoints' answers.
        var page: JSONValue?
        if case .success(let answer?) = await feed, answer["results"]?.arrayValue != nil, answer["last_seq"] != nil {
            page = answer
        } else {
            try Self.checkDatabaseInfo(try await remote.json(.get, []), remote: remote.displayURL)
        }
        var opening = SyncOpening()
        if push { opening.push = CheckpointPair(repID: pushID, local: Checkpoint(pushLocal), remote: try await pushRemote.get()) }
        if pull { opening.pull = CheckpointPair(repID: pullID, local: Checkpoint(pullLocal), remote: try await pullRemote.get()) }
        if let guess, let page { opening.pullFeed = (guess, page) }
        return opening
    }

    /// The answer of `GET /db` must look like a CouchDB database's.
    static func checkDatabaseInfo(_ info: JSONValue, remote: String) throws(SyncError) {
        guard info["db_name"] != nil || info["update_seq"] != nil else {
            throw SyncError.protocolError("\(remote) does not look like a CouchDB database")
        }
    }

    /// One page of the remote feed, as the pull asks it.
    func changesPage(since: JSONValue) async throws(SyncError) -> JSONValue {
        try await remote.json(.get, ["_changes"], query: [
            ("feed", "normal"), ("style", "all_docs"), ("since", Self.sequenceText(since)), ("limit", String(limits.count)),
        ])
    }
}
