import FPCore
import FPHex
import GRDB

/// What the replicator (and `fprint db` maintenance) needs beyond `DocumentStore`.
extension SQLiteDocumentStore {
    /// The latest change of each document after `since`, in sequence order,
    /// tombstones included: the local `_changes` feed.
    package func changes(since: Int64, limit: Int) throws -> [StoredDocument] {
        guard limit > 0 else { return [] }
        let raws = try read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT d.id, d.rev, d.deleted, d.seq, r.body
                FROM documents d JOIN revisions r ON r.doc_id = d.id AND r.rev = d.rev
                WHERE d.seq > ?
                ORDER BY d.seq
                LIMIT ?
                """)
            return try Row.fetchAll(statement, arguments: [since, limit]).map(RawDocument.init(row:))
        }
        var documents: [StoredDocument] = []
        documents.reserveCapacity(raws.count)
        for raw in raws { documents.append(try raw.decoded()) }
        return documents
    }

    /// The winning branch of a document's revision tree, newest first (the
    /// ids of CouchDB's `_revisions`). Works for deleted documents too.
    package func revisionHistory(id: String) throws -> [Revision] {
        try read { db in
            let statement = try db.cachedStatement(sql: """
                WITH RECURSIVE branch (rev, parent_rev, generation) AS (
                    SELECT r.rev, r.parent_rev, r.generation
                    FROM documents d JOIN revisions r ON r.doc_id = d.id AND r.rev = d.rev
                    WHERE d.id = ?1
                    UNION ALL
                    SELECT r.rev, r.parent_rev, r.generation
                    FROM branch b JOIN revisions r ON r.doc_id = ?1 AND r.rev = b.parent_rev
                )
                SELECT rev FROM branch ORDER BY generation DESC
                """)
            let texts = try String.fetchAll(statement, arguments: [id])
            guard !texts.isEmpty else { throw StoreError.notFound(id: id) }
            return try texts.map { try Self.revision($0, of: id) }
        }
    }

    /// The last update sequence number handed out, 0 for a new database.
    /// Read from SQLite's AUTOINCREMENT counter, which never goes back even
    /// when change rows are removed.
    package func lastSequence() throws(StoreError) -> Int64 {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
        }
    }

    /// This database's random id, made when it was created. Part of the
    /// replication id, so a wiped and rebuilt database starts replication afresh.
    package func databaseUUID() throws(StoreError) -> String {
        let uuid = try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'database_uuid'")
        }
        guard let uuid else { throw StoreError.io("the database has no database_uuid in its meta table") }
        return uuid
    }

    /// The name of the last schema migration applied ("v1", …).
    package func schemaVersion() throws -> String {
        let applied = try read { db in try Schema.migrator.appliedMigrations(db) }
        guard let last = applied.last else { throw StoreError.io("the database has no schema migrations applied") }
        return last
    }

    /// SQLite's integrity and foreign-key checks; empty when the database is sound.
    package func integrityCheck() throws -> [String] {
        try read { db in
            var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0] ?? "?"
                let rowid: Int64? = row[1]
                let parent: String = row[2] ?? "?"
                problems.append("foreign key violation: \(table) row \(rowid.map(String.init) ?? "?") → \(parent)")
            }
            return problems
        }
    }
}

extension SQLiteDocumentStore {
    /// Runs raw SQL in a write transaction and returns the rows as text (NULL
    /// as nil). Internal: for tests that check what the public API cannot
    /// show, without them importing GRDB.
    func rawSQL(_ sql: String) throws -> [[String?]] {
        try write { db in
            try Row.fetchAll(db, sql: sql).map { row in
                row.databaseValues.map { value -> String? in
                    switch value.storage {
                    case .null: nil
                    case .int64(let i): String(i)
                    case .double(let d): String(d)
                    case .string(let s): s
                    case .blob(let b): Hex.string(b)
                    }
                }
            }
        }
    }
}
