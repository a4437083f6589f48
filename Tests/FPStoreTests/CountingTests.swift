import FPCore
import Foundation
import Testing

@testable import FPStore

/// `liveAndPendingCounts` (status's counts, kept by triggers) and
/// `documentsWithSeveralLeaves(among:)` (list --json's page) answer in SQL
/// what `list` and the whole-tree scan answered before: the same numbers and
/// the same documents.
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

    /// The counts the triggers keep, and the counts by counting.
    func keptAndCounted() throws -> (kept: DocumentCounts?, counted: DocumentCounts) {
        try store.read { db in (try DocumentCounts.kept(db), try DocumentCounts.counted(db)) }
    }

    @Test func keptCountsFollowEveryKindOfWrite() throws {
        var steps: [(String, DocumentCounts?, DocumentCounts)] = []
        func step(_ name: String) throws {
            let (kept, counted) = try keptAndCounted()
            steps.append((name, kept, counted))
        }
        try store.insert([NewDocument(id: "a", body: measurementBody()), NewDocument(id: "b", body: measurementBody()),
                          NewDocument(id: "c", body: measurementBody())])
        try step("insert")
        try store.markSynced(ids: ["a", "b"])
        try step("synced")
        let b = try #require(try store.document(id: "b", includeDeleted: false))
        _ = try store.edit(id: "b", body: measurementBody(note: "again"), parent: b.rev, deleted: false)
        try step("edit of a synced document")
        try store.delete(id: "c")
        try step("local deletion")
        try store.putReplicated([replicated("r", [rev(1, "a")], note: "r")], markSynced: true)
        try store.putReplicated([replicated("a", [rev(1, "z")], note: "a conflict")], markSynced: false)
        try step("replicated")
        try store.putReplicated([RevisionContent(id: "r", rev: rev(2, "d"), deleted: true, body: [:],
                                                 history: [rev(2, "d"), rev(1, "a")])], markSynced: true)
        try step("replicated deletion")
        // Refused writes roll their whole transaction back (`OR ROLLBACK`),
        // the trigger's count with it, and the store takes the next write.
        expectStoreError(.conflict(id: "a")) {
            try store.insert([NewDocument(id: "new", body: measurementBody()), NewDocument(id: "a", body: measurementBody())])
        }
        try step("a batch refused for a conflict")
        expectStoreError(.notFound(id: "nobody")) { try store.markSynced(ids: ["b", "nobody"]) }
        try step("a refused markSynced")
        try store.insert([NewDocument(id: "after", body: measurementBody())])
        try step("an insert after the refusals")
        for (name, kept, counted) in steps { #expect(kept == counted, "\(name)") }
        // and what they end at: a, b and after live, c and r deleted, b not synced
        let last = try #require(steps.last?.1)
        #expect(last.total == 5 && last.deleted == 2, "\(last)")
        #expect(try store.document(id: "new", includeDeleted: true) == nil)
        #expect(try store.liveAndPendingCounts().live == (try store.count()))
    }

    @Test func aFileFromBeforeTheKeptCountsIsCountedThenMigrated() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("v8.sqlite").path
        do {
            let old = try SQLiteDocumentStore(path: path, migratingUpTo: "v8")
            try old.insert((0..<5).map { NewDocument(id: "d\($0)", body: measurementBody()) })
            try old.markSynced(ids: ["d0"])
            try old.delete(id: "d1")
            try old.close()
        }
        // Read-only, the file is not migrated and is counted
        let readOnly = try SQLiteDocumentStore(path: path, access: .readOnly)
        #expect(try readOnly.read { try DocumentCounts.kept($0) } == nil)
        #expect(try readOnly.liveAndPendingCounts() == (live: 4, pending: 4))
        // Migrated, the counts start from the documents and go on with them
        let store = try SQLiteDocumentStore(path: path)
        #expect(try store.read { try DocumentCounts.kept($0) } == DocumentCounts(total: 5, deleted: 1, pending: 4))
        try store.insert([NewDocument(id: "new", body: measurementBody())])
        #expect(try store.liveAndPendingCounts() == (live: 5, pending: 5))
    }

    @Test func checkFindsWrongKeptCountsAndRecountMendsThem() throws {
        try store.insert([NewDocument(id: "a", body: measurementBody()), NewDocument(id: "b", body: measurementBody())])
        #expect(try store.check().isSound)
        _ = try store.rawSQL("UPDATE document_counts SET pending = 7")
        let report = try store.check()
        #expect(!report.isSound)
        #expect(report.counts?.contains("2 documents, 0 deleted, 7 pending") == true, "\(report.counts ?? "")")
        #expect(report.damaged.isEmpty && report.sqlite.isEmpty)
        try store.recount()
        #expect(try store.check().isSound)
        #expect(try store.liveAndPendingCounts() == (live: 2, pending: 2))
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
