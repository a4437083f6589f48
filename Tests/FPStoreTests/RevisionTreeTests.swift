import FPCore
import FPStore
import Foundation
import Testing

/// The revision tree under replication: `new_edits:false` inserts, conflicts,
/// CouchDB's winner rule, `_revs_diff`, tombstones, the all-leaves feed.
@Suite struct RevisionTreeTests {
    let store: SQLiteDocumentStore

    init() throws {
        store = try SQLiteDocumentStore.inMemory()
    }

    func rev(_ n: Int, _ c: Character) -> Revision { Revision(generation: n, hash: String(repeating: c, count: 32)) }

    func content(_ id: String, _ history: [Revision], deleted: Bool = false, note: String = "") -> RevisionContent {
        RevisionContent(id: id, rev: history[0], deleted: deleted,
                        body: deleted ? [:] : measurementBody(note: note), history: history)
    }

    @Test func replicatedRevisionKeepsItsHistory() throws {
        // Given a revision made elsewhere with three generations of history
        let history = [rev(3, "c"), rev(2, "b"), rev(1, "a")]
        // When it is stored with new_edits:false
        try store.putReplicated([content("m1", history)], markSynced: true)
        // Then it is the winner, with exactly that ancestry, and counts as synced
        let doc = try #require(try store.document(id: "m1", includeDeleted: false))
        #expect(doc.rev == rev(3, "c"))
        #expect(try store.revisionHistory(id: "m1") == history)
        #expect(try store.revision(id: "m1", rev: rev(3, "c"))?.history == history)
        #expect(try store.list(ListQuery(unsyncedOnly: true)).isEmpty)
        // Ancestors are stubs without bodies: not fetchable as revisions
        #expect(try store.revision(id: "m1", rev: rev(2, "b")) == nil)
    }

    /// A new document's row is written whole in one insert (winner, summary,
    /// synced): it lists as the same body written here does, and a first
    /// revision that is a deletion lists as a deletion.
    @Test func aNewReplicatedDocumentListsAsTheSameBodyWrittenHere() throws {
        let body = measurementBody(level: "J2", createdAt: "2026-11-27T07:00:00.000Z", x: 12, y: 34, sessionId: "s1",
                                   seq: 7, ble: 3, wifi: 2, cells: 1, fixes: 1)
        try store.putReplicated([RevisionContent(id: "m1", rev: rev(2, "b"), deleted: false, body: body,
                                                 history: [rev(2, "b"), rev(1, "a")])], markSynced: true)
        try store.putReplicated([RevisionContent(id: "m2", rev: rev(1, "d"), deleted: true, body: body,
                                                 history: [rev(1, "d")])], markSynced: false)
        let here = try SQLiteDocumentStore.inMemory()
        try here.insert([NewDocument(id: "m1", body: body), NewDocument(id: "m2", body: body)])

        let listed = try store.list(ListQuery(includeDeletions: true))
        let written = try here.list(ListQuery(includeDeletions: true))
        #expect(listed.count == 2 && written.count == 2)
        for (replicated, local) in zip(listed, written) {
            var expected = local
            expected.rev = replicated.rev
            expected.synced = replicated.id == "m1"
            expected.deleted = replicated.id == "m2"
            #expect(replicated == expected)
        }
        #expect(try store.revision(id: "m1", rev: rev(1, "a")) == nil)
    }

    @Test func siblingsBecomeConflictsAndTheWinnerIsDeterministic() throws {
        // Given a common parent and two children from two devices
        try store.putReplicated([content("m1", [rev(1, "a")])], markSynced: false)
        try store.putReplicated([content("m1", [rev(2, "b"), rev(1, "a")], note: "device B")], markSynced: false)
        try store.putReplicated([content("m1", [rev(2, "e"), rev(1, "a")], note: "device E")], markSynced: false)
        // Then the greater hash wins and the other leaf is a conflict
        let doc = try #require(try store.document(id: "m1", includeDeleted: false))
        #expect(doc.rev == rev(2, "e"))
        #expect(doc.body["note"] == "device E")
        #expect(try store.conflicts(id: "m1") == [rev(2, "b")])
        #expect(try store.leaves(id: "m1").map(\.rev) == [rev(2, "e"), rev(2, "b")])
        // And the losing branch keeps its body
        #expect(try store.revision(id: "m1", rev: rev(2, "b"))?.body["note"] == "device B")

        // The same two revisions in the other order give the same winner.
        let other = try SQLiteDocumentStore.inMemory()
        try other.putReplicated([content("m1", [rev(2, "e"), rev(1, "a")], note: "device E")], markSynced: false)
        try other.putReplicated([content("m1", [rev(2, "b"), rev(1, "a")], note: "device B")], markSynced: false)
        #expect(try other.document(id: "m1", includeDeleted: false)?.rev == rev(2, "e"))
    }

    @Test func liveLeafBeatsDeletedLeafOfHigherGeneration() throws {
        try store.putReplicated([content("m1", [rev(2, "b"), rev(1, "a")])], markSynced: false)
        // A deleted branch three generations deep
        try store.putReplicated([content("m1", [rev(3, "z"), rev(2, "y"), rev(1, "a")], deleted: true)], markSynced: false)
        let doc = try #require(try store.document(id: "m1", includeDeleted: true))
        #expect(doc.rev == rev(2, "b"))
        #expect(!doc.deleted)
        // Deleted leaves are not conflicts
        #expect(try store.conflicts(id: "m1").isEmpty)
        // Deleting the live branch too makes the higher deleted leaf win
        try store.putReplicated([content("m1", [rev(3, "c"), rev(2, "b"), rev(1, "a")], deleted: true)], markSynced: false)
        let gone = try #require(try store.document(id: "m1", includeDeleted: true))
        #expect(gone.deleted)
        #expect(gone.rev == rev(3, "z"))
        #expect(try store.document(id: "m1", includeDeleted: false) == nil)
    }

    @Test func higherGenerationWinsOverGreaterHash() throws {
        try store.putReplicated([content("m1", [rev(3, "a"), rev(2, "a"), rev(1, "a")])], markSynced: false)
        try store.putReplicated([content("m1", [rev(2, "f"), rev(1, "a")])], markSynced: false)
        #expect(try store.document(id: "m1", includeDeleted: false)?.rev == rev(3, "a"))
    }

    @Test func revsDiffListsOnlyUnknownRevisions() throws {
        try store.putReplicated([content("m1", [rev(2, "b"), rev(1, "a")])], markSynced: false)
        let missing = try store.revsDiff([
            "m1": [rev(1, "a"), rev(2, "b"), rev(3, "c")],
            "m2": [rev(1, "x")],
        ])
        #expect(missing == ["m1": [rev(3, "c")], "m2": [rev(1, "x")]])
        #expect(try store.revsDiff(["m1": [rev(2, "b")]]).isEmpty)
    }

    @Test func storingAKnownRevisionAgainChangesNothing() throws {
        try store.putReplicated([content("m1", [rev(1, "a")])], markSynced: false)
        let seq = try store.lastSequence()
        try store.putReplicated([content("m1", [rev(1, "a")])], markSynced: false)
        #expect(try store.lastSequence() == seq)
        #expect(try store.count() == 1)
    }

    @Test func changeFeedListsAllLeavesWinnerFirst() throws {
        try store.insert([NewDocument(id: "local", body: measurementBody())])
        try store.putReplicated([content("m1", [rev(1, "a")])], markSynced: false)
        try store.putReplicated([content("m1", [rev(2, "b"), rev(1, "a")])], markSynced: false)
        try store.putReplicated([content("m1", [rev(2, "c"), rev(1, "a")])], markSynced: false)
        let feed = try store.changeFeed(since: 0, limit: 10)
        #expect(feed.map(\.id) == ["local", "m1"])
        #expect(feed[1].leaves == [rev(2, "c"), rev(2, "b")])
        #expect(try store.changeCount(since: feed[0].seq) == 1)
        #expect(try store.changeFeed(since: feed[1].seq, limit: 10).isEmpty)
    }

    @Test func localEditsExtendTheTreeAndRefuseStaleParents() throws {
        let first = try store.edit(id: "m1", body: measurementBody(), parent: nil, deleted: false)
        let second = try store.edit(id: "m1", body: measurementBody(note: "2"), parent: first, deleted: false)
        #expect(second.generation == 2)
        #expect(try store.revision(id: "m1", rev: second)?.history == [second, first])
        expectStoreError(.conflict(id: "m1")) { try store.edit(id: "m1", body: measurementBody(), parent: first, deleted: false) }
        expectStoreError(.conflict(id: "m1")) { try store.edit(id: "m1", body: measurementBody(), parent: nil, deleted: false) }
        let tomb = try store.edit(id: "m1", body: [:], parent: second, deleted: true)
        #expect(try store.document(id: "m1", includeDeleted: true)?.rev == tomb)
        #expect(try store.document(id: "m1", includeDeleted: false) == nil)
        // A tombstone replicates like any revision
        #expect(try store.changeFeed(since: 0, limit: 10).first?.deleted == true)
    }

    @Test func invalidReplicatedInputIsRefusedWhole() throws {
        expectStoreError(.invalid("document id _design/x must not start with '_'")) {
            try store.putReplicated([content("_design/x", [rev(1, "a")])], markSynced: false)
        }
        // A history that skips a generation is refused, and nothing of the batch is stored
        do {
            try store.putReplicated([content("ok", [rev(1, "a")]), content("bad", [rev(3, "c"), rev(1, "a")])],
                                    markSynced: false)
            Issue.record("a history with a gap was accepted")
        } catch {}
        #expect(try store.count() == 0)
    }

    @Test func allDocsRangesAndLocalDocuments() throws {
        for id in ["a", "b", "c", "d"] { try store.putReplicated([content(id, [rev(1, "a")])], markSynced: false) }
        #expect(try store.allDocs(startKey: "b", endKey: "c", limit: nil).map(\.id) == ["b", "c"])
        #expect(try store.allDocs(startKey: nil, endKey: nil, limit: 3).map(\.id) == ["a", "b", "c"])
        try store.putLocalDocument(id: "rep.id_=", body: ["x": 1])
        #expect(try store.deleteLocalDocument(id: "rep.id_="))
        #expect(!(try store.deleteLocalDocument(id: "rep.id_=")))
    }
}
