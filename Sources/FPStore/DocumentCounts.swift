import FPCore
import GRDB

/// The counts `fprint status` shows: documents, deletions among them and
/// documents not yet synced. From format 9 SQLite keeps them in
/// `document_counts` by triggers (Schema "v9"), so reading them is one row
/// whatever the database's size; an older file, opened read-only and so not
/// migrated, is counted through its indexes.
struct DocumentCounts: Equatable {
    var total: Int
    var deleted: Int
    var pending: Int

    /// The three counts by counting, each reading only what it counts (the
    /// whole table's walks the smallest index, deletions are a range of
    /// `documents_by_import` and pending documents `documents_pending`).
    private static let counting = """
        (SELECT count(*) FROM documents), (SELECT count(*) FROM documents WHERE deleted = 1),
        (SELECT count(*) FROM documents WHERE synced = 0)
        """

    /// Sets the kept counts from the table itself (`fprint repair`, when
    /// `check` found them wrong).
    static let recount = "UPDATE document_counts SET (total, deleted, pending) = (\(counting))"

    /// The counts as kept, nil in a file from before format 9.
    static func kept(_ db: Database) throws -> DocumentCounts? {
        guard try db.tableExists("document_counts") else { return nil }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT total, deleted, pending FROM document_counts"))
        else { return nil }
        return DocumentCounts(total: row[0], deleted: row[1], pending: row[2])
    }

    /// The counts by counting (`counting`).
    static func counted(_ db: Database) throws -> DocumentCounts {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(counting)"))
        return DocumentCounts(total: row?[0] ?? 0, deleted: row?[1] ?? 0, pending: row?[2] ?? 0)
    }
}

extension SQLiteDocumentStore {
    /// Live documents, and documents not yet synced (deletions included):
    /// `status`'s two counts, without building a summary (at 100,000
    /// documents `status` once built them all to count the pending ones).
    package func liveAndPendingCounts() throws(StoreError) -> (live: Int, pending: Int) {
        try read { db in
            let counts = try DocumentCounts.kept(db) ?? DocumentCounts.counted(db)
            return (counts.total - counts.deleted, counts.pending)
        }
    }

    /// What `fprint check` says when the kept counts differ from `counted`,
    /// the documents' own (a file edited by hand, or damage): nil when they agree.
    static func countsProblem(_ db: Database, counted: DocumentCounts) throws -> String? {
        guard let kept = try DocumentCounts.kept(db) else { return nil }
        guard kept != counted else { return nil }
        return "the counts kept for `fprint status` (\(kept.total) documents, \(kept.deleted) deleted, \(kept.pending) pending)"
            + " differ from the documents (\(counted.total), \(counted.deleted), \(counted.pending)); `fprint repair` recounts them"
    }

    /// Sets the kept counts from the documents (`fprint repair`).
    package func recount() throws {
        try write { db in
            if try DocumentCounts.kept(db) != nil { try db.execute(sql: DocumentCounts.recount) }
        }
    }
}
