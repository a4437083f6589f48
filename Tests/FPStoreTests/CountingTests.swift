import FPCore
import Foundation
import Testing

@testable import FPStore

/// `liveAndPendingCounts` (status's counts) and `documentsWithSeveralLeaves(among:)`
/// (list --json's page) answer in SQL what `list` and the whole-tree scan
/// answered before: the same numbers and the same documents.
@Suite struct CountingTests {
    let store: SQLiteDocumentStore

    init() throws {
        store = try SQLiteDocumentStore.inMemory()
    }

    func rev(_ n: Int, _ c: Character) -> Revision { Revision(generation: n, hash: String(repeating: c, count: 32)) }

    func replicated(_ id: String, _ history: [Revision], note: String) -> RevisionContent {
        RevisionContent(id: id, rev: history[0], deleted: false, body: measurementBody(note: note), history: history)
    }

    @Test func statusCountsEqualTheListings() throws {
        // Given live, synced, deleted and walk documents on two maps
        try store.insert([
            NewDocument(id: "a", body: measurementBody(level: "J1NP")),
            NewDocument(id: "b", body: measurementBody(level: "J2NP", createdAt: "2026-11-23T06:00:00.000Z")),
            NewDocument(id: "c", body: measurementBody(level: "J2NP", mode: "walk", sessionId: "S1", seq: 1)),
            NewDocument(id: "d", body: measurementBody(level: "J1NP")),
            NewDocument(id: "e", body: measurementBody(level: "J1NP")),
        ])
        try store.markSynced(ids: ["a", "b"])
        try store.delete(id: "d")  // an unsynced deletion: pending like a document
        // Then status's counts are those of the listings they stand for
        let counts = try store.liveAndPendingCounts()
        #expect(counts.live == (try store.count()))
        #expect(counts.live == (try store.list(ListQuery()).count))
        #expect(counts.pending == (try store.list(ListQuery(unsyncedOnly: true, includeDeletions: true)).count))
        #expect(counts.live == 4 && counts.pending == 3)  // c, d (deleted), e
        // and a synced deletion is neither
        try store.delete(id: "e")
        try store.markSynced(ids: ["d", "e"])
        let after = try store.liveAndPendingCounts()
        #expect(after.live == 3 && after.pending == 1)
        #expect(after.pending == (try store.list(ListQuery(unsyncedOnly: true, includeDeletions: true)).count))
    }

    @Test func pendingDocumentsAreCountedThroughAnIndexOfThemAlone() throws {
        // The partial index follows a document into and out of "pending"
        try store.insert([NewDocument(id: "a", body: measurementBody()), NewDocument(id: "b", body: measurementBody())])
        try store.markSynced(ids: ["a"])
        let indexed = "SELECT count(*) FROM documents INDEXED BY documents_pending WHERE synced = 0"
        #expect(try store.rawSQL(indexed) == [["1"]])
        let synced = try #require(try store.document(id: "a", includeDeleted: false))
        _ = try store.edit(id: "a", body: measurementBody(note: "again"), parent: synced.rev, deleted: false)
        #expect(try store.rawSQL(indexed) == [["2"]])
        #expect(try store.liveAndPendingCounts().pending == 2)
        // and status's count reads it, not every document
        let plan = try store.rawSQL("EXPLAIN QUERY PLAN SELECT count(*) FROM documents WHERE synced = 0")
        #expect(plan.flatMap { $0 }.compactMap { $0 }.joined(separator: " ").contains("documents_pending"), "\(plan)")
    }

    @Test func severalLeavesOfAPageAreThoseOfTheWholeTree() throws {
        // Given m1 and m3 with two leaves each, m2 with one
        for id in ["m1", "m2", "m3"] {
            try store.putReplicated([replicated(id, [rev(1, "a")], note: id)], markSynced: false)
            try store.putReplicated([replicated(id, [rev(2, "b"), rev(1, "a")], note: "B")], markSynced: false)
        }
        for id in ["m1", "m3"] {
            try store.putReplicated([replicated(id, [rev(2, "e"), rev(1, "a")], note: "E")], markSynced: false)
        }
        #expect(try store.documentsWithSeveralLeaves() == ["m1", "m3"])
        // Then a page names only its own conflicted documents
        #expect(try store.documentsWithSeveralLeaves(among: ["m1", "m2"]) == ["m1"])
        #expect(try store.documentsWithSeveralLeaves(among: ["m2"]).isEmpty)
        #expect(try store.documentsWithSeveralLeaves(among: ["m3", "m2", "m1", "unknown"]) == ["m1", "m3"])
        // and a long list (one scan instead of a probe each) gives the same answer
        let many = ["m1", "m2"] + (0..<3_000).map { "absent-\($0)" }
        #expect(try store.documentsWithSeveralLeaves(among: many) == ["m1"])
    }
}
