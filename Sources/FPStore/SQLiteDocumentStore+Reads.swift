import FPCore
import GRDB

extension SQLiteDocumentStore {
    package func document(id: String, includeDeleted: Bool) throws -> StoredDocument? {
        let raw = try readBody { db in
            let statement = try db.cachedStatement(sql: """
                SELECT d.id, d.rev, d.deleted, d.seq, r.body
                FROM documents d JOIN revisions r ON r.doc_id = d.id AND r.rev = d.rev
                WHERE d.id = ?
                """)
            return try Self.readingDamage(id: id, rev: nil) {
                try Row.fetchOne(statement, arguments: [id]).map(RawDocument.init(row:))
            }
        }
        guard let raw, includeDeleted || !raw.deleted else { return nil }
        // Bodies are parsed outside the read, so the connection is free sooner.
        return try raw.decoded()
    }

    /// The `AND …` conditions of a `ListQuery` (every filter but the limit) for
    /// `documents` under the alias `table` ("" for none), shared by every listing.
    static func listFilter(_ query: ListQuery, table: String) -> (sql: String, arguments: StatementArguments) {
        let c = table.isEmpty ? "" : table + "."
        var sql = ""
        var arguments = StatementArguments()
        if let level = query.level {
            sql += " AND \(c)level = ?"
            arguments += [level]
        }
        if let sinceMs = query.sinceMs {
            sql += " AND \(c)created_at_ms >= ?"
            arguments += [sinceMs]
        }
        if let beforeMs = query.beforeMs {
            sql += " AND \(c)created_at_ms < ?"
            arguments += [beforeMs]
        }
        if query.unsyncedOnly { sql += " AND \(c)synced = 0" }
        if let mode = query.mode {
            sql += " AND \(c)mode = ?"
            arguments += [mode]
        }
        if let sessionId = query.sessionId {
            sql += " AND \(c)session_id = ?"
            arguments += [sessionId]
        }
        return (sql, arguments)
    }

    package func list(_ query: ListQuery) throws(StoreError) -> [DocumentSummary] {
        if let limit = query.limit, limit < 0 { throw StoreError.invalid("a list limit must not be negative") }
        // Only summary columns: `list` must stay fast with 100,000 documents.
        var sql = "SELECT \(ListedSummary.selection) FROM documents WHERE " + (query.includeDeletions ? "1" : "deleted = 0")
        let filter = Self.listFilter(query, table: "")
        sql += filter.sql
        var arguments = filter.arguments
        sql += " ORDER BY created_at_ms DESC, id"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try read { db in
            let rows = try ListedSummary.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            var summaries: [DocumentSummary] = []
            while let row = try rows.next() { summaries.append(row.summary) }
            return summaries
        }
    }

    package func resolve(idPrefix: String) throws(StoreError) -> String {
        guard !idPrefix.isEmpty else { throw StoreError.invalid("an id prefix must not be empty") }
        let upper = Self.prefixUpperBound(idPrefix)
        return try read { db in
            let exact = try db.cachedStatement(sql: "SELECT 1 FROM documents WHERE id = ? AND deleted = 0")
            if try Bool.fetchOne(exact, arguments: [idPrefix]) != nil { return idPrefix }
            // A range on the primary key, not LIKE: LIKE ignores case and
            // treats `%`/`_` in the prefix as wildcards, and the range uses the index.
            var sql = "SELECT count(*), min(id) FROM documents WHERE deleted = 0 AND id >= ?"
            var arguments: StatementArguments = [idPrefix]
            if let upper {
                sql += " AND id < ?"
                arguments += [upper]
            }
            let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments)
            let matches: Int = row?[0] ?? 0
            let first: String? = row?[1]
            switch (matches, first) {
            case (1, let id?): return id
            case (0, _), (_, nil): throw StoreError.notFound(id: idPrefix)
            default:
                var listing = "SELECT id FROM documents WHERE deleted = 0 AND id >= ?" + (upper == nil ? "" : " AND id < ?")
                listing += " ORDER BY id LIMIT 5"
                let some = try String.fetchAll(db.cachedStatement(sql: listing), arguments: arguments)
                throw StoreError.ambiguous(prefix: idPrefix, matches: some, count: matches)
            }
        }
    }

    package func localDocument(id: String) throws(StoreError) -> JSONValue? {
        let text = try read { db in
            try String.fetchOne(
                db.cachedStatement(sql: "SELECT body FROM local_documents WHERE id = ?"), arguments: [id])
        }
        guard let text else { return nil }
        do {
            return try CanonicalJSON.parse(text)
        } catch {
            throw StoreError.io("the stored body of local document \(id) is not valid JSON: \(error)")
        }
    }

    package func count() throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM documents WHERE deleted = 0")) ?? 0
        }
    }

    /// Live documents per map (their `level`), the map names in order; one pass over the level index.
    package func documentsPerMap() throws(StoreError) -> [(map: String, documents: Int)] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT level, count(*) FROM documents WHERE deleted = 0 AND level <> '' GROUP BY level ORDER BY level
                """)).map { (map: $0[0], documents: $0[1]) }
        }
    }

    /// Whether a live document is on the gateway: one row read, for `fprint show`.
    package func isSynced(id: String) throws -> Bool {
        let synced = try read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT synced FROM documents WHERE id = ? AND deleted = 0"),
                              arguments: [id])
        }
        guard let synced else { throw StoreError.notFound(id: id) }
        return synced
    }

    // MARK: - Helpers

    /// The smallest string greater than every string that starts with
    /// `prefix`, nil when there is none (every character is U+10FFFF).
    /// SQLite compares text by its UTF-8 bytes, which orders like code
    /// points, so `prefix <= id < bound` selects exactly the ids with that prefix.
    static func prefixUpperBound(_ prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }  // surrogates are not scalars
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var bound = String.UnicodeScalarView()
                bound.append(contentsOf: scalars)
                return String(bound)
            }
            // `last` was U+10FFFF: carry into the character before it.
        }
        return nil
    }

    /// Parses a stored revision id; a bad one means a damaged database.
    static func revision(_ text: String, of id: String) throws -> Revision {
        guard let rev = Revision(text) else {
            throw StoreError.io("document \(id) has a malformed stored revision \(text)")
        }
        return rev
    }
}

/// A document row as read, before its body is parsed.
struct RawDocument {
    var id: String
    var rev: String
    var deleted: Bool
    var seq: Int64
    /// As stored: compressed, or plain text from before v4 (`StoredBody`).
    var body: DatabaseValue

    init(row: Row) {
        id = row[0]
        rev = row[1]
        deleted = row[2]
        seq = row[3]
        body = row[4]
    }

    func decoded() throws -> StoredDocument {
        guard let rev = Revision(rev) else {
            throw StoreError.io("document \(id) has a malformed stored revision \(rev)")
        }
        // The winning revision is a leaf, and leaves always keep their body.
        guard let body = try StoredBody.text(body, id: id, rev: self.rev) else {
            throw DamagedDocument(id: id, rev: self.rev, reason: "the body of its winning revision is missing")
        }
        let value: JSONValue
        do {
            value = try CanonicalJSON.parse(body)
        } catch {
            throw DamagedDocument(id: id, rev: self.rev, reason: "it is not valid JSON (\(error))")
        }
        return StoredDocument(id: id, rev: rev, body: value, deleted: deleted, seq: seq)
    }
}
