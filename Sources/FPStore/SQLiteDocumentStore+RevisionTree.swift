import Foundation
import FPCore
import GRDB

/// Replication on the revision tree: revisions made elsewhere, conflicts,
/// CouchDB's deterministic winner, `_revs_diff`, `_changes` with all leaves.
///
/// A leaf is a revision no other revision names as its parent. Leaves keep
/// their bodies; the document row always points at the winning leaf.
extension SQLiteDocumentStore: ReplicableStore {
    package func changeFeed(since: Int64, limit: Int) throws(StoreError) -> [ChangeEntry] {
        guard limit > 0 else { return [] }
        return try read { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, rev, deleted, seq FROM documents WHERE seq > ? ORDER BY seq LIMIT ?
                """), arguments: [since, limit])
            return try rows.map { row in
                let id: String = row[0]
                let rev = try Self.revision(row[1], of: id)
                let leaves = try Self.leafRows(db, id: id)
                // Winner first, then the others in winner order.
                let others = RevisionWinner.sorted(leaves).map(\.rev).filter { $0 != rev }
                return ChangeEntry(seq: row[3], id: id, rev: rev, deleted: row[2], leaves: [rev] + others)
            }
        }
    }

    package func changeCount(since: Int64) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM documents WHERE seq > ?"), arguments: [since]) ?? 0
        }
    }

    package func deletedCount() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM documents WHERE deleted = 1") ?? 0 }
    }

    package func revsDiff(_ revs: [String: [Revision]]) throws(StoreError) -> [String: [Revision]] {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM revisions WHERE doc_id = ? AND rev = ?")
            var missing: [String: [Revision]] = [:]
            for (id, list) in revs {
                for rev in list where try Bool.fetchOne(statement, arguments: [id, rev.description]) == nil {
                    missing[id, default: []].append(rev)
                }
            }
            return missing
        }
    }

    package func putReplicated(_ revisions: [RevisionContent], markSynced: Bool) throws(StoreError) {
        guard !revisions.isEmpty else { return }
        for content in revisions {
            try Self.validate(id: content.id)
            if let text = content.bodyText {
                try Self.validate(bodyText: text, members: content.bodyMembers, of: content.id)
            } else {
                try Self.validate(body: content.body, of: content.id)
            }
            guard content.history.first == content.rev else {
                throw StoreError.invalid("the history of \(content.id) \(content.rev) must start with that revision")
            }
            for (older, newer) in zip(content.history.dropFirst(), content.history)
            where older.generation != newer.generation - 1 {
                throw StoreError.invalid("the history of \(content.id) \(content.rev) skips a generation")
            }
        }
        // Texts and summaries are computed (on every core) before the write lock is taken.
        let prepared = concurrentMap(revisions) { content in
            // Text received is kept as it came: no parse, no rewrite.
            if let text = content.bodyText {
                return (content, StoredBody.compress(text), Summary(bodyText: text, members: content.bodyMembers))
            }
            return (content, StoredBody.compress(CanonicalJSON.bytes(content.body)), Summary(body: content.body))
        }
        try write { db in
            for (content, stored, summary) in prepared {
                try Self.insertReplicated(db, content, stored: stored, summary: summary, markSynced: markSynced)
            }
        }
    }

    @discardableResult
    package func edit(id: String, body: JSONValue, parent: Revision?, deleted: Bool,
                     attachmentData: [String: [UInt8]], attachmentOrder: [String]) throws(StoreError) -> Revision {
        try Self.validate(id: id)
        let stored = body  // a tombstone keeps what it was given, as in CouchDB
        try Self.validate(body: stored, of: id)
        return try write { db in
            let current = try Self.currentState(db, id: id)
            // A new edit must name the current winner, or nothing for a new
            // (or deleted) document; anything else is CouchDB's 409.
            if let current {
                if current.deleted {
                    guard parent == nil || parent == current.rev else { throw StoreError.conflict(id: id) }
                } else {
                    guard parent == current.rev else { throw StoreError.conflict(id: id) }
                }
            } else {
                guard parent == nil, !deleted else {
                    throw deleted ? StoreError.notFound(id: id) : StoreError.conflict(id: id)
                }
            }
            let base = current.map(\.rev)
            let rev = Revision.next(after: base, body: stored, deleted: deleted)
            let history = [rev] + (try base.map { try Self.ancestry(db, id: id, from: $0) } ?? [])
            let content = RevisionContent(id: id, rev: rev, deleted: deleted, body: stored, history: history,
                                          attachmentData: attachmentData)
            // Canonical text but for the attachments' order (CouchDB keeps it); the revision hashes the canonical body.
            try Self.insertReplicated(db, content, stored: StoredBody.compress(Attachments.bodyBytes(stored, order: attachmentOrder)),
                                      summary: Summary(body: stored), markSynced: false)
            return rev
        }
    }

    package func revision(id: String, rev: Revision) throws -> RevisionContent? {
        guard let text = try revisionText(id: id, rev: rev) else { return nil }
        do {
            return try text.content()
        } catch {
            throw DamagedDocument(id: id, rev: rev.description, reason: "it is not valid JSON (\(error))")
        }
    }

    package func revisionText(id: String, rev: Revision) throws -> RevisionText? {
        try readBody { db in
            let statement = try db.cachedStatement(sql: "SELECT deleted, body FROM revisions WHERE doc_id = ? AND rev = ?")
            guard let row = try Self.readingDamage(id: id, rev: rev.description, {
                try Row.fetchOne(statement, arguments: [id, rev.description])
            }), let body = try StoredBody.text(row[1], id: id, rev: rev.description) else { return nil }
            return RevisionText(id: id, rev: rev, deleted: row[0], history: try Self.ancestry(db, id: id, from: rev),
                                bodyText: body)
        }
    }

    package func leaves(id: String) throws(StoreError) -> [(rev: Revision, deleted: Bool)] {
        try read { db in RevisionWinner.sorted(try Self.leafRows(db, id: id)) }
    }

    package func synced(ids: [String]) throws(StoreError) -> Set<String> {
        try read { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM documents WHERE id = ? AND synced = 1")
            return try Set(ids.filter { try Bool.fetchOne(statement, arguments: [$0]) != nil })
        }
    }

    package func conflicts(id: String) throws(StoreError) -> [Revision] {
        let all = try leaves(id: id)
        guard let winner = all.first else { return [] }
        return all.dropFirst().filter { !$0.deleted && $0.rev != winner.rev }.map(\.rev)
    }

    package func allDocs(startKey: String?, endKey: String?, limit: Int?) throws(StoreError) -> [AllDocsRow] {
        var sql = "SELECT id, rev, deleted FROM documents WHERE deleted = 0"
        var arguments = StatementArguments()
        if let startKey {
            sql += " AND id >= ?"
            arguments += [startKey]
        }
        if let endKey {
            sql += " AND id <= ?"
            arguments += [endKey]
        }
        sql += " ORDER BY id"
        if let limit {
            sql += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        return try read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                let id: String = row[0]
                return AllDocsRow(id: id, rev: try Self.revision(row[1], of: id), deleted: row[2])
            }
        }
    }

    @discardableResult
    package func deleteLocalDocument(id: String) throws(StoreError) -> Bool {
        try write { db in
            try db.cachedStatement(sql: "DELETE FROM local_documents WHERE id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: - Inside a write transaction

    /// Adds one revision and its ancestry to the tree, then re-elects the winner.
    static func insertReplicated(_ db: Database, _ content: RevisionContent, stored: Data, summary: Summary,
                                 markSynced: Bool) throws {
        let id = content.id
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM revisions WHERE doc_id = ? AND rev = ?")
        // Already known (a replication retried after a crash): nothing to do.
        if try Bool.fetchOne(exists, arguments: [id, content.rev.description]) != nil { return }
        try storeAttachments(db, content)

        // The change row first: the document row needs its sequence number.
        try db.cachedStatement(sql: "INSERT INTO changes (doc_id, rev) VALUES (?, ?)")
            .execute(arguments: [id, content.rev.description])
        let seq = db.lastInsertedRowID
        try db.cachedStatement(sql: "DELETE FROM changes WHERE doc_id = ? AND seq < ?").execute(arguments: [id, seq])

        let hadDocument = try currentState(db, id: id) != nil
        if !hadDocument {
            // Revisions reference the document row, so it comes first. A new
            // document's one leaf is this revision: its row is written whole,
            // winner and summary, and nothing below changes it.
            let arguments: StatementArguments = [id, content.rev.description, content.deleted, seq] + summary.columnValues
                + [markSynced]
            if try hasImportSequence(db) {
                try db.cachedStatement(sql: Self.insertReplicatedDocumentSQL).execute(arguments: arguments + [seq])
            } else {
                try db.cachedStatement(sql: Self.insertReplicatedDocumentSQLv6).execute(arguments: arguments)
            }
        }

        // Ancestors, oldest first, as body-less stubs where unknown. The
        // oldest listed has no known parent (the history may be pruned).
        let insert = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO revisions (doc_id, rev, parent_rev, generation, deleted, body)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        let history = content.history
        for index in stride(from: history.count - 1, through: 0, by: -1) {
            let rev = history[index]
            let parent = index + 1 < history.count ? history[index + 1].description : nil
            let isLeaf = index == 0
            try insert.execute(arguments: [
                id, rev.description, parent, rev.generation, isLeaf && content.deleted, isLeaf ? stored : nil,
            ])
        }
        // A new document's ancestors are the stubs just written.
        guard hadDocument else { return }
        // The parent is no longer a leaf: drop its body (leaves keep bodies).
        if history.count > 1 {
            try db.cachedStatement(sql: "UPDATE revisions SET body = NULL WHERE doc_id = ? AND rev = ?")
                .execute(arguments: [id, history[1].description])
        }

        // Re-elect the winner among all leaves.
        let leaves = RevisionWinner.sorted(try leafRows(db, id: id))
        guard let winner = leaves.first else { throw StoreError.io("document \(id) has no leaf revision") }
        if winner.rev == content.rev && !(content.deleted && hadDocument) {
            try db.cachedStatement(sql: """
                UPDATE OR ROLLBACK documents SET rev = ?, deleted = ?, seq = ?, \(Summary.columnAssignments), synced = ? WHERE id = ?
                """).execute(arguments: [content.rev.description, content.deleted, seq] + summary.columnValues
                    + [markSynced, id])
        } else if winner.rev == content.rev {
            // A tombstone keeps the summary of the last live revision.
            try db.cachedStatement(sql: "UPDATE OR ROLLBACK documents SET rev = ?, deleted = 1, seq = ?, synced = ? WHERE id = ?")
                .execute(arguments: [content.rev.description, seq, markSynced, id])
        } else {
            // A losing branch arrived: the winner stays, but the change is
            // still announced (style=all_docs lists the new leaf).
            try db.cachedStatement(sql: "UPDATE OR ROLLBACK documents SET rev = ?, deleted = ?, seq = ? WHERE id = ?")
                .execute(arguments: [winner.rev.description, winner.deleted, seq, id])
        }
    }

    /// A new document's whole row, from its one replicated revision
    /// (`OR ROLLBACK`: see `insertDocumentSQL`).
    static let insertReplicatedDocumentSQL = """
        INSERT OR ROLLBACK INTO documents (id, rev, deleted, seq, \(Summary.columnList), synced, import_seq)
        VALUES (?, ?, ?, ?, \(Summary.columnPlaceholders), ?, ?)
        """
    /// Before v7 (a test building an old database): no `import_seq`.
    static let insertReplicatedDocumentSQLv6 = """
        INSERT OR ROLLBACK INTO documents (id, rev, deleted, seq, \(Summary.columnList), synced)
        VALUES (?, ?, ?, ?, \(Summary.columnPlaceholders), ?)
        """

    /// Leaves of a document's tree, unordered.
    static func leafRows(_ db: Database, id: String) throws -> [(rev: Revision, deleted: Bool)] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT r.rev, r.deleted FROM revisions r
            WHERE r.doc_id = ?1 AND NOT EXISTS (
                SELECT 1 FROM revisions c WHERE c.doc_id = ?1 AND c.parent_rev = r.rev)
            """), arguments: [id])
        return try rows.map { (try revision($0[0], of: id), $0[1]) }
    }

    /// `rev` and its known ancestors, newest first.
    static func ancestry(_ db: Database, id: String, from rev: Revision) throws -> [Revision] {
        let texts = try String.fetchAll(db.cachedStatement(sql: """
            WITH RECURSIVE branch (rev, parent_rev, generation) AS (
                SELECT rev, parent_rev, generation FROM revisions WHERE doc_id = ?1 AND rev = ?2
                UNION ALL
                SELECT r.rev, r.parent_rev, r.generation
                FROM branch b JOIN revisions r ON r.doc_id = ?1 AND r.rev = b.parent_rev
            )
            SELECT rev FROM branch ORDER BY generation DESC
            """), arguments: [id, rev.description])
        return try texts.map { try revision($0, of: id) }
    }
}

enum RevisionTreeSchema {
    /// "v3": finding leaves means finding revisions nobody names as parent;
    /// without this index that is a scan of every revision.
    static func register(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3") { db in
            try db.execute(sql: "CREATE INDEX revisions_by_parent ON revisions (doc_id, parent_rev)")
        }
    }
}
