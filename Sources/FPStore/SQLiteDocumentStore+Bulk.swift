import FPCore
import GRDB

/// A stored document as its JSON text, for bulk readers (eval, export) that
/// decode only what they need.
public struct DocumentText: Sendable, Equatable {
    public var id: String
    public var rev: String
    public var createdAtMs: Int64
    /// The body without `_id`/`_rev`, canonical JSON.
    public var body: String
}

extension SQLiteDocumentStore {
    /// Every live document matching `query` (its `limit` included), in fprint's
    /// "file order": oldest `createdAt` first, then id. This is the order
    /// eval breaks neighbour ties in, so it is fixed and documented.
    public func documentTexts(_ query: ListQuery) throws -> [DocumentText] {
        if let limit = query.limit, limit < 0 { throw StoreError.invalid("a limit must not be negative") }
        var sql = """
            SELECT d.id, d.rev, d.created_at_ms, r.body
            FROM documents d JOIN revisions r ON r.doc_id = d.id AND r.rev = d.rev
            WHERE d.deleted = 0
            """
        let filter = Self.listFilter(query, table: "d")
        sql += filter.sql
        var arguments = filter.arguments
        sql += " ORDER BY d.created_at_ms, d.id"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try read { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            var out: [DocumentText] = []
            while let row = try rows.next() {
                let id: String = row[0]
                guard let body = try StoredBody.text(row[3], of: id) else {
                    throw StoreError.io("document \(id) has lost the body of its winning revision")
                }
                out.append(DocumentText(id: id, rev: row[1], createdAtMs: row[2], body: body))
            }
            return out
        }
    }
}
