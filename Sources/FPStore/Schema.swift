import Foundation
import GRDB

/// The database schema, as an ordered list of named migrations.
///
/// Rules (GRDB "Migrations › Good Practices"): a migration is never edited
/// once it has shipped — a schema change is a new migration ("v2", …) — and
/// migrations use literal table and column names, never Swift types, so a
/// later rename in code cannot change what an old migration does.
enum Schema {
    /// `PRAGMA user_version` of the newest format this fprint reads and writes.
    static let formatVersion = 9
    /// Page size of new databases; `fprint maintenance` moves smaller ones to it.
    static let newPageSize = 8192

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // No `eraseDatabaseOnSchemaChange`, not even in DEBUG: the databases
        // hold field measurements that cannot be re-collected, and a developer
        // build pointed at a real database must never wipe it.

        migrator.registerMigration("v1") { db in
            // Per-database facts. `database_uuid` is random per database, so
            // the replication id changes when a database is wiped and rebuilt
            // (the gateway then re-sends everything instead of trusting an
            // old checkpoint).
            try db.execute(sql: """
                CREATE TABLE meta (
                    key   TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                )
                """)
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('database_uuid', ?)",
                arguments: [UUID().uuidString.lowercased()])

            // One row per document: its winning revision, its place in the
            // update sequence and the summary columns `list` reads without
            // touching bodies. The winner must exist in `revisions` (checked
            // at commit, because the two rows are written in one transaction).
            try db.execute(sql: """
                CREATE TABLE documents (
                    id            TEXT PRIMARY KEY NOT NULL,
                    rev           TEXT NOT NULL,
                    deleted       INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
                    seq           INTEGER NOT NULL,
                    created_at_ms INTEGER NOT NULL DEFAULT 0,
                    created_at    TEXT NOT NULL DEFAULT '',
                    level         TEXT NOT NULL DEFAULT '',
                    mode          TEXT NOT NULL DEFAULT '',
                    x             REAL NOT NULL DEFAULT 0,
                    y             REAL NOT NULL DEFAULT 0,
                    session_id    TEXT,
                    walk_seq      INTEGER,
                    ble_count     INTEGER NOT NULL DEFAULT 0,
                    wifi_count    INTEGER NOT NULL DEFAULT 0,
                    cell_count    INTEGER NOT NULL DEFAULT 0,
                    geo_count     INTEGER NOT NULL DEFAULT 0,
                    synced        INTEGER NOT NULL DEFAULT 0 CHECK (synced IN (0, 1)),
                    FOREIGN KEY (id, rev) REFERENCES revisions (doc_id, rev) DEFERRABLE INITIALLY DEFERRED
                )
                """)
            // `_changes` walks documents by sequence; UNIQUE because one
            // sequence number names exactly one change.
            try db.execute(sql: "CREATE UNIQUE INDEX documents_by_seq ON documents (seq)")
            // Newest-first listing; `id` last so the tie-break needs no sort.
            try db.execute(sql: "CREATE INDEX documents_by_time ON documents (deleted, created_at_ms DESC, id)")
            try db.execute(sql: "CREATE INDEX documents_by_level ON documents (level)")
            try db.execute(sql: "CREATE INDEX documents_by_session ON documents (session_id)")

            // The revision tree, one row per revision. Only leaves keep their
            // body (as CouchDB after compaction): a superseded revision keeps
            // its id and parent, which is what `_revisions` and conflict
            // handling need. A rowid table, not WITHOUT ROWID, because bodies
            // are tens of kilobytes.
            // `parent_rev` has no foreign key on purpose: revisions received
            // by replication may arrive with a pruned history whose oldest
            // known ancestor has an unknown parent.
            try db.execute(sql: """
                CREATE TABLE revisions (
                    doc_id     TEXT NOT NULL REFERENCES documents (id),
                    rev        TEXT NOT NULL,
                    parent_rev TEXT,
                    generation INTEGER NOT NULL CHECK (generation >= 1),
                    deleted    INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
                    body       TEXT,
                    PRIMARY KEY (doc_id, rev)
                )
                """)

            // The update sequence. AUTOINCREMENT so a number is never reused,
            // even after the older rows of a document are deleted (each
            // document keeps only the row of its latest change).
            try db.execute(sql: """
                CREATE TABLE changes (
                    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
                    doc_id TEXT NOT NULL REFERENCES documents (id) DEFERRABLE INITIALLY DEFERRED,
                    rev    TEXT NOT NULL
                )
                """)
            try db.execute(sql: "CREATE INDEX changes_by_doc ON changes (doc_id)")

            // Non-replicated `_local` documents: replication checkpoints, settings.
            try db.execute(sql: """
                CREATE TABLE local_documents (
                    id   TEXT PRIMARY KEY NOT NULL,
                    body TEXT NOT NULL
                )
                """)
        }

        migrator.registerMigration("v2") { db in
            // v1's listing index held only the sort keys, so `list` visited the
            // table for every row. This one covers every column `list` reads:
            // listing 100,000 summaries measured about 40 % faster on the dev
            // VM, for about 100 bytes a document next to bodies of tens of
            // kilobytes. Same leading columns, so the newest-first order still
            // needs no sort.
            try db.execute(sql: "DROP INDEX documents_by_time")
            try db.execute(sql: """
                CREATE INDEX documents_list ON documents (
                    deleted, created_at_ms DESC, id,
                    rev, created_at, level, mode, x, y, session_id, walk_seq,
                    ble_count, wifi_count, cell_count, geo_count, synced)
                """)
        }

        // v3: the revision tree index of replication.
        RevisionTreeSchema.register(&migrator)

        migrator.registerMigration("v4") { _ in
            // No table changes: from v4 on, `revisions.body` holds zstd frames
            // (BLOBs) of the canonical JSON (`StoredBody`); older rows keep
            // their text and stay readable. The migration exists so that an
            // older fprint, which would read the frames as text, refuses the
            // file ("created by a newer version of fprint") instead.
        }
        migrator.registerMigration("v5") { db in
            // No table changes: `user_version` names the file format, so a
            // newer file is refused by a check that needs no table of ours.
            try db.execute(sql: "PRAGMA user_version = 5")
            // Documents `fprint repair` took out of the live tables because a
            // revision could not be read and no peer had it: one row per
            // revision, its raw bytes kept as stored (NULL when even they
            // could not be read), so nothing is ever thrown away.
            try db.execute(sql: """
                CREATE TABLE quarantine (
                    id             INTEGER PRIMARY KEY,
                    doc_id         TEXT NOT NULL,
                    rev            TEXT NOT NULL,
                    parent_rev     TEXT,
                    generation     INTEGER,
                    deleted        INTEGER,
                    raw_body       BLOB,
                    reason         TEXT NOT NULL,
                    quarantined_at TEXT NOT NULL
                )
                """)
        }
        migrator.registerMigration("v6") { db in
            try db.execute(sql: "PRAGMA user_version = 6")
            // Attachment bytes, once per document and digest: the revisions'
            // bodies hold stubs naming them (`Attachments`). zstd frames like
            // bodies, so a damaged one is reported, never handed on.
            try db.execute(sql: """
                CREATE TABLE attachments (
                    doc_id TEXT NOT NULL,
                    digest TEXT NOT NULL,
                    data   BLOB NOT NULL,
                    PRIMARY KEY (doc_id, digest)
                )
                """)
        }
        migrator.registerMigration("v7") { db in
            try db.execute(sql: "PRAGMA user_version = 7")
            // The order documents first reached this database (`import`'s
            // rows, a walk's windows, a pull's changes): eval's and export's
            // "file order", which radio-localization-eval breaks ties in. It
            // is the change sequence of the document's first revision and
            // never changes after. Older rows take their rowid, the order
            // they were inserted in (unless a VACUUM renumbered them).
            try db.execute(sql: "ALTER TABLE documents ADD COLUMN import_seq INTEGER")
            try db.execute(sql: "UPDATE documents SET import_seq = rowid")
            // Covers every column `readDocumentTexts` reads or filters on, in
            // its order, so the bulk read needs neither a sort nor the table.
            try db.execute(sql: """
                CREATE INDEX documents_by_import ON documents (
                    deleted, import_seq, id, rev, created_at_ms, level, mode, session_id, synced)
                """)
        }
        migrator.registerMigration("v8") { db in
            try db.execute(sql: "PRAGMA user_version = 8")
            // The documents not yet synced, and only they: `fprint status`
            // counts them through this index in time proportional to what is
            // pending. Before, it scanned a covering index of every document
            // (~10 ms of a 30 ms goal at 100,000 documents).
            try db.execute(sql: "CREATE INDEX documents_pending ON documents (synced) WHERE synced = 0")
        }
        migrator.registerMigration("v9") { db in
            try db.execute(sql: "PRAGMA user_version = 9")
            // `fprint status`'s counts, kept by SQLite itself: triggers on
            // every insert, delete and change of `deleted` or `synced`, in the
            // writing transaction, whichever code writes. Counting through
            // the indexes took ~10 ms of a 30 ms goal at 100,000 documents.
            // The store never uses REPLACE on `documents`, whose implied
            // deletes would not fire the delete trigger.
            try db.execute(sql: """
                CREATE TABLE document_counts (
                    only    INTEGER PRIMARY KEY CHECK (only = 0),
                    total   INTEGER NOT NULL,
                    deleted INTEGER NOT NULL,
                    pending INTEGER NOT NULL
                )
                """)
            try db.execute(sql: """
                INSERT INTO document_counts VALUES (0, (SELECT count(*) FROM documents),
                    (SELECT count(*) FROM documents WHERE deleted = 1), (SELECT count(*) FROM documents WHERE synced = 0))
                """)
            try db.execute(sql: """
                CREATE TRIGGER documents_counted_on_insert AFTER INSERT ON documents BEGIN
                    UPDATE document_counts SET total = total + 1, deleted = deleted + NEW.deleted,
                        pending = pending + (NEW.synced = 0);
                END
                """)
            try db.execute(sql: """
                CREATE TRIGGER documents_counted_on_delete AFTER DELETE ON documents BEGIN
                    UPDATE document_counts SET total = total - 1, deleted = deleted - OLD.deleted,
                        pending = pending - (OLD.synced = 0);
                END
                """)
            try db.execute(sql: """
                CREATE TRIGGER documents_counted_on_update AFTER UPDATE OF deleted, synced ON documents BEGIN
                    UPDATE document_counts SET deleted = deleted + NEW.deleted - OLD.deleted,
                        pending = pending + (NEW.synced = 0) - (OLD.synced = 0);
                END
                """)
        }
        // Later migrations go here ("v10", …), each raising `formatVersion`.
        return migrator
    }
}
