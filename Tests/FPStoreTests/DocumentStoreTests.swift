import FPCore
import FPStore
import Foundation
import Testing

/// Behaviour of the store through the `DocumentStore` API, each test on a
/// fresh in-memory database built with the production configuration.
@Suite struct DocumentStoreTests {
    let store: SQLiteDocumentStore

    init() throws {
        store = try SQLiteDocumentStore.inMemory()
    }

    // MARK: insert / get

    @Test func insertedDocumentRoundTrips() throws {
        // Given a measurement body
        let body = measurementBody(note: "ünïcode \"quoted\"\n")
        // When it is inserted and read back
        let stored = try store.insert([NewDocument(id: "m1", body: body)])
        let read = try #require(try store.document(id: "m1", includeDeleted: false))
        // Then the body is unchanged and the revision is the first, deterministic one
        #expect(read.body == body)
        #expect(read == stored.first)
        #expect(isRevisionText(read.rev.description))
        #expect(read.rev == Revision.next(after: nil, body: body))
        #expect(read.rev.generation == 1)
        #expect(!read.deleted)
        #expect(read.seq == 1)
        #expect(try store.count() == 1)
    }

    @Test func equalBodiesGetEqualRevisions() throws {
        // Given two documents with the same body and one with another body
        let stored = try store.insert([
            NewDocument(id: "a", body: measurementBody()),
            NewDocument(id: "b", body: measurementBody()),
            NewDocument(id: "c", body: measurementBody(note: "other")),
        ])
        // Then equal bodies share the revision id, a different body does not
        #expect(stored[0].rev == stored[1].rev)
        #expect(stored[0].rev != stored[2].rev)
        // And each change got its own, increasing sequence number
        #expect(stored.map(\.seq) == [1, 2, 3])
    }

    @Test func missingDocumentIsNil() throws {
        #expect(try store.document(id: "nope", includeDeleted: true) == nil)
    }

    // MARK: batches

    @Test func batchWithDuplicateIdStoresNothing() throws {
        // Given a batch whose third document repeats the first id
        let batch = ["a", "b", "a"].map { NewDocument(id: $0, body: measurementBody(note: $0)) }
        // When it is inserted, then it conflicts and nothing of it is stored
        expectStoreError(.conflict(id: "a")) { try store.insert(batch) }
        #expect(try store.count() == 0)
        #expect(try store.document(id: "b", includeDeleted: true) == nil)
        #expect(try store.lastSequence() == 0)
    }

    @Test func batchWithExistingIdStoresNothing() throws {
        // Given a stored document
        try store.insert([NewDocument(id: "old", body: measurementBody())])
        // When a later batch contains its id
        let batch = ["new1", "old", "new2"].map { NewDocument(id: $0, body: measurementBody(note: $0)) }
        expectStoreError(.conflict(id: "old")) { try store.insert(batch) }
        // Then none of the batch's documents was stored
        #expect(try store.count() == 1)
        #expect(try store.document(id: "new1", includeDeleted: true) == nil)
        #expect(try store.lastSequence() == 1)
    }

    @Test func deletedIdCannotBeInsertedAgain() throws {
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        try store.delete(id: "a")
        expectStoreError(.conflict(id: "a")) { try store.insert([NewDocument(id: "a", body: measurementBody())]) }
    }

    @Test(arguments: [
        ("", measurementBody()),
        ("_design/x", measurementBody()),
        ("a", JSONValue.array([1, 2])),
        ("a", ["_rev": "1-abc", "x": 1] as JSONValue),
    ])
    func invalidDocumentsAreRefused(id: String, body: JSONValue) throws {
        do {
            try store.insert([NewDocument(id: id, body: body)])
            Issue.record("invalid document \(id) was accepted")
        } catch StoreError.invalid {
            // expected
        }
        #expect(try store.count() == 0)
    }

    // MARK: update

    @Test func updateWithCurrentRevisionReplacesBody() throws {
        // Given a stored document
        let first = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first)
        // When it is updated with its current revision
        let newBody = measurementBody(level: "J2NP")
        let second = try store.update(id: "a", body: newBody, expected: first.rev)
        // Then the new revision descends from the first and is the one read back
        #expect(second.rev == Revision.next(after: first.rev, body: newBody))
        #expect(second.rev.generation == 2)
        #expect(second.seq > first.seq)
        #expect(try store.document(id: "a", includeDeleted: false) == second)
        #expect(try store.list(ListQuery()).map(\.level) == ["J2NP"])
        #expect(try store.revisionHistory(id: "a") == [second.rev, first.rev])
    }

    @Test func updateWithStaleRevisionConflicts() throws {
        // Given a document updated once
        let first = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first)
        let second = try store.update(id: "a", body: measurementBody(note: "2"), expected: first.rev)
        // When someone updates it from the first revision
        expectStoreError(.conflict(id: "a")) {
            try store.update(id: "a", body: measurementBody(note: "3"), expected: first.rev)
        }
        // Then the document is unchanged
        #expect(try store.document(id: "a", includeDeleted: false)?.rev == second.rev)
        #expect(try store.lastSequence() == second.seq)
    }

    @Test func updateOfMissingOrDeletedDocumentIsNotFound() throws {
        let rev = Revision.next(after: nil, body: measurementBody())
        expectStoreError(.notFound(id: "x")) { try store.update(id: "x", body: measurementBody(), expected: rev) }
        let first = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first)
        try store.delete(id: "a")
        expectStoreError(.notFound(id: "a")) { try store.update(id: "a", body: measurementBody(), expected: first.rev) }
    }

    @Test func updateMakesSyncedDocumentUnsyncedAgain() throws {
        // Given a synced document
        let first = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first)
        try store.markSynced(ids: ["a"])
        #expect(try store.list(ListQuery(unsyncedOnly: true)).isEmpty)
        // When it gets a new revision (e.g. signed before push), then that revision is unsynced
        try store.update(id: "a", body: measurementBody(note: "signed"), expected: first.rev)
        #expect(try store.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["a"])
    }

    @Test func batchUpdateAppliesCurrentOnesAndSkipsStaleOrMissing() throws {
        // Given three documents, one of which changes after the caller read it, and one deleted
        let stored = try store.insert(["a", "b", "c", "d"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        try store.update(id: "b", body: measurementBody(note: "changed meanwhile"), expected: stored[1].rev)
        try store.delete(id: "d")
        // When all four are updated from the revisions first read (plus an unknown id)
        let updates = stored.map { DocumentUpdate(id: $0.id, body: measurementBody(note: "signed"), expected: $0.rev) }
            + [DocumentUpdate(id: "zz", body: measurementBody(), expected: stored[0].rev)]
        let applied = try store.updateWhereCurrent(updates)
        // Then a and c are updated, b keeps its concurrent edit, d stays deleted
        #expect(applied.map(\.id) == ["a", "c"])
        #expect(try store.document(id: "a", includeDeleted: false)?.body["note"] == "signed")
        #expect(try store.document(id: "a", includeDeleted: false)?.rev.generation == 2)
        #expect(try store.document(id: "b", includeDeleted: false)?.body["note"] == "changed meanwhile")
        #expect(try store.document(id: "d", includeDeleted: false) == nil)
        #expect(try store.document(id: "zz", includeDeleted: true) == nil)
        // And a body with a reserved key refuses the whole batch
        let fresh = try #require(try store.document(id: "c", includeDeleted: false))
        expectStoreError(.invalid("the body of document c must not contain the reserved key _rev")) {
            try store.updateWhereCurrent([DocumentUpdate(id: "c", body: ["_rev": "1-x"], expected: fresh.rev)])
        }
        #expect(try store.document(id: "c", includeDeleted: false)?.rev == fresh.rev)
    }

    // MARK: delete

    @Test func deleteLeavesHiddenTombstone() throws {
        // Given two documents
        let stored = try store.insert([
            NewDocument(id: "a", body: measurementBody()), NewDocument(id: "b", body: measurementBody(note: "b")),
        ])
        // When one is deleted
        try store.delete(id: "a")
        // Then it is hidden from reads, list and count
        #expect(try store.document(id: "a", includeDeleted: false) == nil)
        #expect(try store.list(ListQuery()).map(\.id) == ["b"])
        #expect(try store.count() == 1)
        // But a tombstone revision one generation newer remains, with a new sequence
        let tombstone = try #require(try store.document(id: "a", includeDeleted: true))
        #expect(tombstone.deleted)
        #expect(tombstone.body == [:])
        #expect(tombstone.rev == Revision.next(after: stored[0].rev, body: [:], deleted: true))
        #expect(tombstone.rev.generation == stored[0].rev.generation + 1)
        #expect(tombstone.seq == 3)
        #expect(try store.changes(since: 0, limit: 10).map(\.id) == ["b", "a"])
        #expect(try store.revisionHistory(id: "a") == [tombstone.rev, stored[0].rev])
    }

    @Test func deleteIsRefusedAfterSync() throws {
        // Given a document marked as synced
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        try store.markSynced(ids: ["a"])
        // When it is deleted, then the store refuses and keeps it
        expectStoreError(.alreadySynced(id: "a")) { try store.delete(id: "a") }
        #expect(try store.document(id: "a", includeDeleted: false)?.deleted == false)
        #expect(try store.count() == 1)
    }

    @Test func deleteOfMissingOrDeletedDocumentIsNotFound() throws {
        expectStoreError(.notFound(id: "x")) { try store.delete(id: "x") }
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        try store.delete(id: "a")
        expectStoreError(.notFound(id: "a")) { try store.delete(id: "a") }
    }

    // MARK: markSynced

    @Test func markSyncedWithUnknownIdMarksNothing() throws {
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        expectStoreError(.notFound(id: "zzz")) { try store.markSynced(ids: ["a", "zzz"]) }
        // "a" was not marked: the call is one transaction
        #expect(try store.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["a"])
        #expect(try store.list(ListQuery()).first?.synced == false)
    }

    // MARK: list

    /// Four documents: times t3 > t2 = t2 > t1, two levels, one walk session.
    func insertListFixture() throws {
        try store.insert([
            NewDocument(id: "s-old", body: measurementBody(level: "J1NP", createdAt: "2026-11-20T10:00:00.000Z")),
            NewDocument(id: "w-2", body: measurementBody(
                level: "J2NP", createdAt: "2026-11-21T10:00:00.000Z", mode: "walk", position: (12.5, 40.25),
                sessionId: "S1", seq: 2, ble: 5, wifi: 3, cells: 2, fixes: 1)),
            NewDocument(id: "w-1", body: measurementBody(
                level: "J2NP", createdAt: "2026-11-21T10:00:00.000Z", mode: "walk", sessionId: "S1", seq: 1)),
            NewDocument(id: "s-new", body: measurementBody(level: "J1NP", createdAt: "2026-11-22T10:00:00.123Z")),
        ])
    }

    @Test func listIsNewestFirstWithIdTieBreak() throws {
        try insertListFixture()
        let all = try store.list(ListQuery())
        #expect(all.map(\.id) == ["s-new", "w-1", "w-2", "s-old"])
        #expect(try store.list(ListQuery(limit: 2)).map(\.id) == ["s-new", "w-1"])
        #expect(try store.list(ListQuery(limit: 0)).isEmpty)
    }

    @Test func listSummaryColumnsComeFromTheBody() throws {
        try insertListFixture()
        let walk = try #require(try store.list(ListQuery()).first { $0.id == "w-2" })
        let expectedRev = Revision.next(after: nil, body: try #require(try store.document(id: "w-2", includeDeleted: false)).body)
        #expect(walk.rev == expectedRev.description)
        #expect(walk.createdAt == "2026-11-21T10:00:00.000Z")
        #expect(walk.createdAtMs == 1_795_255_200_000)
        #expect(walk.level == "J2NP")
        #expect(walk.mode == "walk")
        #expect(walk.x == 12.5 && walk.y == 40.25)  // from `position`, not the rounded x/y
        #expect(walk.sessionId == "S1")
        #expect(walk.seq == 2)
        #expect([walk.bleCount, walk.wifiCount, walk.cellCount, walk.geoCount] == [5, 3, 2, 1] as [Int])
        #expect(walk.synced == false)
        let staticDoc = try #require(try store.list(ListQuery()).first { $0.id == "s-new" })
        #expect(staticDoc.x == 363 && staticDoc.y == 701)  // no position: x/y
        #expect(staticDoc.sessionId == nil && staticDoc.seq == nil)
        #expect(staticDoc.createdAtMs == 1_795_341_600_123)
    }

    @Test func listFilters() throws {
        try insertListFixture()
        #expect(try store.list(ListQuery(level: "J1NP")).map(\.id) == ["s-new", "s-old"])
        #expect(try store.list(ListQuery(sinceMs: 1_795_255_200_000)).map(\.id) == ["s-new", "w-1", "w-2"])
        #expect(try store.list(ListQuery(mode: "walk")).map(\.id) == ["w-1", "w-2"])
        #expect(try store.list(ListQuery(sessionId: "S1", limit: 1)).map(\.id) == ["w-1"])
        #expect(try store.list(ListQuery(level: "J2NP", mode: "static")).isEmpty)
        try store.markSynced(ids: ["s-new", "w-1"])
        #expect(try store.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["w-2", "s-old"])
    }

    @Test func listRefusesNegativeLimit() throws {
        do {
            _ = try store.list(ListQuery(limit: -1))
            Issue.record("a negative limit was accepted")
        } catch StoreError.invalid {}
    }

    @Test func bodyWithoutSummaryKeysGetsFallbacks() throws {
        try store.insert([NewDocument(id: "bare", body: ["anything": "else"])])
        let summary = try #require(try store.list(ListQuery()).first)
        #expect(summary.createdAtMs == 0 && summary.createdAt == "" && summary.level == "" && summary.mode == "")
        #expect(summary.x == 0 && summary.bleCount == 0 && summary.geoCount == 0)
    }

    // MARK: resolve

    @Test func resolveFindsExactAndUniquePrefixes() throws {
        try store.insert(["abc123", "abd456", "x_1", "xa1", "abc"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        #expect(try store.resolve(idPrefix: "abd") == "abd456")
        // An exact id wins even when it is also a prefix of another id
        #expect(try store.resolve(idPrefix: "abc") == "abc")
        #expect(try store.resolve(idPrefix: "abc1") == "abc123")
        // `_` and `%` are plain characters, not LIKE wildcards
        #expect(try store.resolve(idPrefix: "x_") == "x_1")
        expectStoreError(.ambiguous(prefix: "ab", matches: ["abc", "abc123", "abd456"], count: 3)) { try store.resolve(idPrefix: "ab") }
        expectStoreError(.notFound(id: "zz")) { try store.resolve(idPrefix: "zz") }
        expectStoreError(.notFound(id: "x%")) { try store.resolve(idPrefix: "x%") }
    }

    @Test func resolveIgnoresDeletedDocuments() throws {
        try store.insert(["m-1", "m-2"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        try store.delete(id: "m-1")
        #expect(try store.resolve(idPrefix: "m-") == "m-2")
        expectStoreError(.notFound(id: "m-1")) { try store.resolve(idPrefix: "m-1") }
    }

    @Test func resolveHandlesNonASCIIPrefixes() throws {
        try store.insert(["měření-1", "měření-2", "mě\u{10FFFF}a"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        #expect(try store.resolve(idPrefix: "měření-2") == "měření-2")
        #expect(try store.resolve(idPrefix: "mě\u{10FFFF}") == "mě\u{10FFFF}a")
        expectStoreError(.ambiguous(prefix: "mě", matches: ["měření-1", "měření-2", "mě\u{10FFFF}a"], count: 3)) { try store.resolve(idPrefix: "mě") }
    }

    // MARK: local documents

    @Test func localDocumentsArePutReadAndOverwritten() throws {
        // Given no local document
        #expect(try store.localDocument(id: "_local/checkpoint") == nil)
        // When one is put, then overwritten
        try store.putLocalDocument(id: "_local/checkpoint", body: ["last_seq": 5])
        #expect(try store.localDocument(id: "_local/checkpoint") == ["last_seq": 5])
        try store.putLocalDocument(id: "_local/checkpoint", body: ["last_seq": 9, "history": [1, 2]])
        // Then the latest body is read back, and it is not a replicated document
        #expect(try store.localDocument(id: "_local/checkpoint") == ["last_seq": 9, "history": [1, 2]])
        #expect(try store.changes(since: 0, limit: 10).isEmpty)
        #expect(try store.lastSequence() == 0)
        #expect(try store.count() == 0)
    }

    // MARK: changes / history

    @Test func changesListEachDocumentOnceAtItsLatestSequence() throws {
        // Given a, b, c inserted (seq 1–3), then a updated (4) and b deleted (5)
        let stored = try store.insert(["a", "b", "c"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        let a2 = try store.update(id: "a", body: measurementBody(note: "a2"), expected: stored[0].rev)
        try store.delete(id: "b")
        // Then the feed has each document once, in sequence order, tombstones included
        let all = try store.changes(since: 0, limit: 100)
        #expect(all.map(\.id) == ["c", "a", "b"])
        #expect(all.map(\.seq) == [3, 4, 5])
        #expect(all.map(\.deleted) == [false, false, true])
        #expect(all[1] == a2)
        #expect(try store.lastSequence() == 5)
        // And `since` and `limit` page through it
        #expect(try store.changes(since: 3, limit: 100).map(\.id) == ["a", "b"])
        #expect(try store.changes(since: 0, limit: 2).map(\.id) == ["c", "a"])
        #expect(try store.changes(since: 5, limit: 100).isEmpty)
    }

    @Test func revisionHistoryIsTheWinningBranchNewestFirst() throws {
        let r1 = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first).rev
        let r2 = try store.update(id: "a", body: measurementBody(note: "2"), expected: r1).rev
        let r3 = try store.update(id: "a", body: measurementBody(note: "3"), expected: r2).rev
        #expect(try store.revisionHistory(id: "a") == [r3, r2, r1])
        #expect([r1, r2, r3].map(\.generation) == [1, 2, 3])
        expectStoreError(.notFound(id: "b")) { try store.revisionHistory(id: "b") }
    }
}
