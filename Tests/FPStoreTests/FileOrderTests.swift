import FPCore
import Foundation
import Testing

@testable import FPStore

/// "File order", the order eval breaks ties in and export writes: the order
/// documents first reached the database, whatever their ids or createdAt.
@Suite struct FileOrderTests {
    func ids(_ store: SQLiteDocumentStore, _ query: ListQuery = ListQuery()) throws -> [String] {
        try store.documentTexts(query).map(\.id)
    }

    @Test func documentsComeInTheOrderTheyWereStored() throws {
        let store = try SQLiteDocumentStore.inMemory()
        // Ids in text order m1, m10, m2; createdAt the other way round.
        try store.insert([
            NewDocument(id: "m2", body: measurementBody(createdAt: "2026-11-22T06:00:03.000Z")),
            NewDocument(id: "m10", body: measurementBody(createdAt: "2026-11-22T06:00:02.000Z")),
        ])
        try store.insert([NewDocument(id: "m1", body: measurementBody(level: "J2NP", createdAt: "2026-11-22T06:00:01.000Z"))])
        let rev = Revision.next(after: nil, canonicalBody: CanonicalJSON.bytes(measurementBody(note: "r")))
        try store.putReplicated([RevisionContent(id: "a0", rev: rev, deleted: false, body: measurementBody(note: "r"),
                                                 history: [rev])], markSynced: true)
        #expect(try ids(store) == ["m2", "m10", "m1", "a0"])
        #expect(try ids(store, ListQuery(level: "J1NP")) == ["m2", "m10", "a0"])
        #expect(try ids(store, ListQuery(limit: 2)) == ["m2", "m10"])

        // A new revision keeps the document's place.
        let m2 = try #require(try store.document(id: "m2", includeDeleted: false))
        try store.update(id: "m2", body: measurementBody(note: "edited"), expected: m2.rev)
        #expect(try ids(store) == ["m2", "m10", "m1", "a0"])
        // The read walks the covering index in order: no sort, no table.
        let plan = try store.rawSQL("EXPLAIN QUERY PLAN SELECT id, rev, created_at_ms FROM documents d INDEXED BY documents_by_import "
                                    + "WHERE d.deleted = 0 ORDER BY d.import_seq, d.id").flatMap { $0.compactMap { $0 } }
        #expect(!plan.contains { $0.contains("TEMP B-TREE") } && plan.contains { $0.contains("COVERING INDEX") }, "\(plan)")
    }

    @Test func olderDatabasesKeepTheOrderTheirRowsWereWritten() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("v6.sqlite").path
        do {
            let old = try SQLiteDocumentStore(path: path, migratingUpTo: "v6")
            for id in ["b", "c", "a"] { try old.insert([NewDocument(id: id, body: measurementBody(note: id))]) }
            try old.close()
        }
        // Read-only, the file is not migrated: rows in the order written.
        #expect(try ids(SQLiteDocumentStore(path: path, access: .readOnly)) == ["b", "c", "a"])
        // Migrated, the same order; new documents come after.
        let store = try SQLiteDocumentStore(path: path)
        #expect(try store.schemaVersion() == "v9")
        try store.insert([NewDocument(id: "0", body: measurementBody(note: "new"))])
        #expect(try ids(store) == ["b", "c", "a", "0"])
    }
}
