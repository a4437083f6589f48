import FPCore
import Foundation
import GRDB

/// A stored document as its JSON text, for bulk readers (eval, export) that
/// decode only what they need.
package struct DocumentText: Sendable, Equatable {
    package var id: String
    package var rev: String
    package var createdAtMs: Int64
    /// The body without `_id`/`_rev`, canonical JSON.
    package var body: String
}

/// What a bulk read found: every intact document, and the damaged ones by name.
package struct DocumentTexts: Sendable, Equatable {
    package var documents: [DocumentText]
    package var damaged: [DamagedDocument]
}

extension SQLiteDocumentStore {
    /// Every live document matching `query` (its `limit` included), in fprint's
    /// "file order": the order they first reached this database (`import_seq`;
    /// an imported file's row order). radio-localization-eval breaks
    /// neighbour ties in the order of its input file, so eval does too, and
    /// export writes this order so that a round trip keeps it.
    /// Throws the first damaged document; `readDocumentTexts` carries on past them.
    package func documentTexts(_ query: ListQuery) throws -> [DocumentText] {
        let read = try readDocumentTexts(query)
        if let first = read.damaged.first { throw first }
        return read.documents
    }

    /// As `documentTexts`, but a damaged body (bad frame, bad JSON, or a
    /// damaged database page under it) is listed in `damaged` and skipped:
    /// one bad document must not cost the user every other one.
    package func readDocumentTexts(_ query: ListQuery) throws -> DocumentTexts {
        let read = try readDocuments(query) { $0 }
        return DocumentTexts(documents: read.documents, damaged: read.damaged)
    }

    /// As `readDocumentTexts`, handing each text to `transform` as it is
    /// read, so that only the results are held (eval keeps samples, not the
    /// texts of thousands of documents).
    package func readDocuments<T>(_ query: ListQuery, _ transform: (DocumentText) -> T) throws
        -> (documents: [T], damaged: [DamagedDocument])
    {
        if let limit = query.limit, limit < 0 { throw StoreError.invalid("a limit must not be negative") }
        // Ids first from `documents` and its index, then each body by key: a
        // damaged page under one body then fails that lookup only, where one
        // scan of the join would stop at it.
        let filter = Self.listFilter(query, table: "d")
        return try readPastDamage { db in
            var sql = "SELECT id, rev, created_at_ms FROM documents d WHERE d.deleted = 0" + filter.sql
            var arguments = filter.arguments
            // A database of format 6 opened read-only is not migrated: its rows
            // in rowid order are what v7 numbers them by.
            let sequenced = try Self.hasImportSequence(db)
            sql += sequenced ? " ORDER BY d.import_seq, d.id" : " ORDER BY d.rowid"
            if let limit = query.limit {
                sql += " LIMIT ?"
                arguments += [limit]
            }
            // The index covers every column asked for, so a damaged page of
            // the table itself does not stop the listing; the table is the fallback.
            let index = sequenced ? "documents_by_import" : "documents_list"
            let indexed = sql.replacingOccurrences(of: "FROM documents d WHERE", with: "FROM documents d INDEXED BY \(index) WHERE")
            let heads: [Row]
            do {
                heads = try Row.fetchAll(db, sql: indexed, arguments: arguments)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_ERROR {
                heads = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
            }
            let bodies = try db.cachedStatement(sql: "SELECT body FROM revisions WHERE doc_id = ? AND rev = ?")
            var out: (documents: [T], damaged: [DamagedDocument]) = ([], [])
            out.documents.reserveCapacity(heads.count)
            for head in heads {
                let id: String = head[0]
                let rev: String = head[1]
                do {
                    let text = try Self.readingDamage(id: id, rev: rev) {
                        try StoredBody.text(DatabaseValue.fetchOne(bodies, arguments: [id, rev]) ?? .null,
                                            id: id, rev: rev)
                    }
                    guard let text else {
                        throw DamagedDocument(id: id, rev: rev, reason: "the body of its winning revision is missing")
                    }
                    out.documents.append(transform(DocumentText(id: id, rev: rev, createdAtMs: head[2], body: text)))
                } catch let damaged as DamagedDocument {
                    out.damaged.append(damaged)
                }
            }
            return out
        }
    }

    /// Runs a read of one revision, turning SQLite's "damaged page" errors
    /// into `DamagedDocument` so that callers can skip this one document.
    static func readingDamage<T>(id: String, rev: String?, _ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            throw DamagedDocument(id: id, rev: rev, reason: "a database page under it is damaged (\(error.message ?? "SQLITE_CORRUPT"))")
        }
    }
}
