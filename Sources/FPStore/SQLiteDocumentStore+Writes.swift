import Foundation
import FPCore
import GRDB

/// A revision ready to be written. Everything derived from the body (its
/// canonical text, revision hash and summary) is computed before the write
/// transaction opens, so the write lock is held for SQLite work only.
struct PendingRevision {
    let id: String
    let rev: Revision
    let parent: Revision?
    let deleted: Bool
    let body: JSONValue
    /// The canonical JSON as stored: compressed (`StoredBody`).
    let stored: Data
    let summary: Summary

    init(id: String, body: JSONValue, parent: Revision?, deleted: Bool = false) {
        self.id = id
        let canonical = CanonicalJSON.bytes(body)  // serialised once: hashed and stored
        self.rev = Revision.next(after: parent, canonicalBody: canonical, deleted: deleted)
        self.parent = parent
        self.deleted = deleted
        self.body = body
        self.stored = StoredBody.compress(canonical)
        self.summary = Summary(body: body)
    }

    /// From canonical text (checked by the caller): hashed and stored as
    /// it is, never parsed whole. `body` stays empty: its only reader,
    /// `insert`, does not take text.
    init(id: String, canonicalText: [UInt8], members: [JSONSkim.Member], parent: Revision?) {
        self.init(id: id, canonicalText: canonicalText, members: members, parent: parent,
                  rev: Revision.next(after: parent, canonicalBody: canonicalText), stored: StoredBody.compress(canonicalText))
    }

    /// The same with its hash and compressed form already made (beside the check, for a large text).
    init(id: String, canonicalText: [UInt8], members: [JSONSkim.Member], parent: Revision?, rev: Revision, stored: Data) {
        self.id = id
        self.rev = rev
        self.parent = parent
        self.deleted = false
        self.body = [:]
        self.stored = stored
        self.summary = Summary(bodyText: canonicalText, members: members)
    }

    /// A new document's first revision: from its value, or from its
    /// canonical text as it is (`body` then stays empty, as above).
    init(_ document: NewDocument) {
        switch document.content {
        case .value(let body): self.init(id: document.id, body: body, parent: nil)
        case .canonicalText(let text, let members): self.init(id: document.id, canonicalText: text, members: members, parent: nil)
        }
    }

    /// An update's body: text that `JSONSkim` finds canonical is kept as
    /// it came, anything else goes through the value.
    init(_ update: DocumentUpdate) throws(StoreError) {
        let body: JSONValue
        switch update.body {
        case .value(let value):
            body = value
        case .text(let text):
            if let judged = JSONSkim(text).value(in: 0..<text.count, levels: 1), judged.isCanonical,
               judged.value == 0..<text.count, let members = judged.members {
                try SQLiteDocumentStore.validate(bodyText: text, members: members, of: update.id)
                self.init(id: update.id, canonicalText: text, members: members, parent: update.expected)
                return
            }
            do { body = try JSONParser.parse(text) } catch {
                throw StoreError.invalid("the body of document \(update.id) is not valid JSON (\(error))")
            }
        }
        try SQLiteDocumentStore.validate(body: body, of: update.id)
        self.init(id: update.id, body: body, parent: update.expected)
    }
}

extension SQLiteDocumentStore {
    @discardableResult
    package func insert(_ documents: [NewDocument]) throws(StoreError) -> [StoredDocument] {
        guard !documents.isEmpty else { return [] }
        for document in documents { try Self.validate(document) }
        // As values: the stored documents returned carry their bodies.
        let pending = concurrentMap(documents) { PendingRevision(id: $0.id, body: $0.body, parent: nil) }
        return try write { db in
            let stored = try Self.insertPending(db, pending)
            for document in documents where document.hasAttachments {
                try Self.storeAttachments(db, id: document.id, body: document.body, data: document.attachmentData)
            }
            return stored
        }
    }

    /// Every write to a `documents` row says `OR ROLLBACK`. Its count
    /// triggers (v9) make each such statement write two tables, and for a
    /// statement that writes several and may fail (ABORT, SQLite's default)
    /// SQLite first copies every page it touches into a statement journal,
    /// so that a failure undoes that statement alone: ~80 KB per document
    /// (~160 MB through a temporary file for 2,000 imported, as much again
    /// for marking 2,000 pushed ones synced). Any failure of these writes
    /// fails the whole write anyway, so the transaction is rolled back
    /// instead and no statement journal is kept (GRDB refuses any statement
    /// after it in the same write).
    static let insertDocumentSQL = """
        INSERT OR ROLLBACK INTO documents (id, rev, deleted, seq, import_seq, \(Summary.columnList))
        VALUES (?, ?, 0, ?, ?, \(Summary.columnPlaceholders))
        """
    /// Before v7 (a test building an old database): no `import_seq`.
    static let insertDocumentSQLv6 = """
        INSERT OR ROLLBACK INTO documents (id, rev, deleted, seq, \(Summary.columnList))
        VALUES (?, ?, 0, ?, \(Summary.columnPlaceholders))
        """

    /// Whether `documents` has v7's `import_seq` (GRDB caches the schema per connection).
    static func hasImportSequence(_ db: Database) throws -> Bool {
        try db.columns(in: "documents").contains { $0.name == "import_seq" }
    }

    /// The rows of new documents, inside the caller's transaction. A
    /// document's import sequence is the change sequence of its first revision.
    static func insertPending(_ db: Database, _ pending: [PendingRevision]) throws -> [StoredDocument] {
        let sequenced = try hasImportSequence(db)
        return try pending.map { p in
            let seq = try Self.appendChange(db, p)
            var arguments: StatementArguments = [p.id, p.rev.description, seq]
            if sequenced { arguments += [seq] }
            arguments += p.summary.columnValues
            do {
                try db.cachedStatement(sql: sequenced ? Self.insertDocumentSQL : Self.insertDocumentSQLv6)
                    .execute(arguments: arguments)
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
                // The id exists (live or deleted), or appears twice in the
                // batch: throwing rolls the whole batch back.
                throw StoreError.conflict(id: p.id)
            }
            try Self.appendRevision(db, p)
            return StoredDocument(id: p.id, rev: p.rev, body: p.body, deleted: false, seq: seq)
        }
    }

    @discardableResult
    package func update(id: String, body: JSONValue, expected: Revision) throws(StoreError) -> StoredDocument {
        try Self.validate(body: body, of: id)
        // The new revision descends from `expected`; if that is not the
        // current one the write below refuses, so it can be hashed up front.
        let p = PendingRevision(id: id, body: body, parent: expected)
        return try write { db in
            let current = try Self.currentState(db, id: id)
            guard let current, !current.deleted else { throw StoreError.notFound(id: id) }
            guard current.rev == expected else { throw StoreError.conflict(id: id) }
            return try Self.replaceWinner(db, p)
        }
    }

    @discardableResult
    package func updateWhereCurrent(_ updates: [DocumentUpdate]) throws(StoreError) -> [AppliedUpdate] {
        guard !updates.isEmpty else { return [] }
        let prepared = concurrentMap(updates) { update in Result { () throws(StoreError) in try PendingRevision(update) } }
        let pending = try prepared.map { (result) throws(StoreError) in try result.get() }
        return try write { db in
            try pending.compactMap { p in
                guard let current = try Self.currentState(db, id: p.id), !current.deleted, current.rev == p.parent else {
                    return nil
                }
                let stored = try Self.replaceWinner(db, p)
                return AppliedUpdate(id: stored.id, rev: stored.rev)
            }
        }
    }

    /// Makes `p` (a child of the current winner) the document's winner.
    private static func replaceWinner(_ db: Database, _ p: PendingRevision) throws -> StoredDocument {
        let seq = try appendChange(db, p)
        try appendRevision(db, p)
        // The new revision is not on the gateway yet, so `synced` resets.
        try db.cachedStatement(sql: """
            UPDATE OR ROLLBACK documents SET rev = ?, deleted = 0, seq = ?, \(Summary.columnAssignments), synced = 0 WHERE id = ?
            """).execute(arguments: [p.rev.description, seq] + p.summary.columnValues + [p.id])
        return StoredDocument(id: p.id, rev: p.rev, body: p.body, deleted: false, seq: seq)
    }

    package func delete(ids: [String], evenIfSynced: Bool) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write { db in
            for id in ids {
                let current = try Self.currentState(db, id: id)
                guard let current, !current.deleted else { throw StoreError.notFound(id: id) }
                guard evenIfSynced || !current.synced else { throw StoreError.alreadySynced(id: id) }
                // A tombstone is a revision like any other, so the deletion
                // replicates (a synced document's tombstone is unsynced until
                // it does). The summary columns keep the last live values.
                let p = PendingRevision(id: id, body: [:], parent: current.rev, deleted: true)
                let seq = try Self.appendChange(db, p)
                try Self.appendRevision(db, p)
                try db.cachedStatement(sql: "UPDATE OR ROLLBACK documents SET rev = ?, deleted = 1, seq = ?, synced = 0 WHERE id = ?")
                    .execute(arguments: [p.rev.description, seq, id])
            }
        }
    }

    package func markSynced(ids: [String]) throws(StoreError) {
        guard !ids.isEmpty else { return }
        try write { db in
            let statement = try db.cachedStatement(sql: "UPDATE OR ROLLBACK documents SET synced = 1 WHERE id = ?")
            for id in ids {
                try statement.execute(arguments: [id])
                // An unknown id means the caller's view is wrong: refuse it all.
                if db.changesCount == 0 { throw StoreError.notFound(id: id) }
            }
        }
    }

    package func putLocalDocument(id: String, body: JSONValue) throws(StoreError) {
        guard !id.isEmpty, !id.utf8.contains(0) else {
            throw StoreError.invalid("a local document id must be non-empty text")
        }
        let text = CanonicalJSON.string(body)
        try write { db in
            try db.cachedStatement(sql: """
                INSERT INTO local_documents (id, body) VALUES (?, ?)
                ON CONFLICT (id) DO UPDATE SET body = excluded.body
                """).execute(arguments: [id, text])
        }
    }

    // MARK: - Helpers (inside a write transaction)

    /// Takes the next update sequence number for this change; the document's
    /// older change rows are dropped so `_changes` lists it once.
    static func appendChange(_ db: Database, _ p: PendingRevision) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO changes (doc_id, rev) VALUES (?, ?)")
            .execute(arguments: [p.id, p.rev.description])
        let seq = db.lastInsertedRowID
        if p.parent != nil {
            try db.cachedStatement(sql: "DELETE FROM changes WHERE doc_id = ? AND seq < ?")
                .execute(arguments: [p.id, seq])
        }
        return seq
    }

    /// Adds the revision to the tree and drops its parent's body: only
    /// leaves keep bodies (as CouchDB after compaction).
    static func appendRevision(_ db: Database, _ p: PendingRevision) throws {
        try db.cachedStatement(sql: """
            INSERT INTO revisions (doc_id, rev, parent_rev, generation, deleted, body)
            VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                p.id, p.rev.description, p.parent?.description, p.rev.generation, p.deleted, p.stored,
            ])
        if let parent = p.parent {
            try db.cachedStatement(sql: "UPDATE revisions SET body = NULL WHERE doc_id = ? AND rev = ?")
                .execute(arguments: [p.id, parent.description])
        }
    }

    struct CurrentState {
        var rev: Revision
        var deleted: Bool
        var synced: Bool
    }

    static func currentState(_ db: Database, id: String) throws -> CurrentState? {
        let statement = try db.cachedStatement(sql: "SELECT rev, deleted, synced FROM documents WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return CurrentState(rev: try revision(row[0], of: id), deleted: row[1], synced: row[2])
    }

    // MARK: - Validation

    static func validate(id: String) throws(StoreError) {
        guard !id.isEmpty else { throw StoreError.invalid("a document id must not be empty") }
        // CouchDB reserves `_` ids (`_design/…`, `_local/…`); a replica would refuse them.
        guard !id.hasPrefix("_") else { throw StoreError.invalid("document id \(id) must not start with '_'") }
        // SQLite text is bound NUL-terminated: an id with NUL would be cut short.
        guard !id.utf8.contains(0) else { throw StoreError.invalid("document id must not contain NUL characters") }
    }

    /// A new document's id and body, as the store takes them.
    static func validate(_ document: NewDocument) throws(StoreError) {
        try validate(id: document.id)
        switch document.content {
        case .value(let body): try validate(body: body, of: document.id)
        case .canonicalText(let text, let members): try validate(bodyText: text, members: members, of: document.id)
        }
    }

    static func validate(body: JSONValue, of id: String) throws(StoreError) {
        guard let object = body.objectValue else {
            throw StoreError.invalid("the body of document \(id) must be a JSON object")
        }
        // `_id`, `_rev`, `_deleted`, … belong to the store and the protocol, not the body.
        // `_attachments` is the one exception: stubs of the bytes kept beside.
        if let key = object.keys.first(where: { $0.hasPrefix("_") && $0 != "_attachments" }) {
            throw StoreError.invalid("the body of document \(id) must not contain the reserved key \(key)")
        }
        if let attachments = object["_attachments"] { try validateAttachmentStubs(attachments, of: id) }
    }

    /// `validate(body:of:)` for a body given as checked text
    /// (`RevisionContent.bodyText`): only its keys and its `_attachments`
    /// member are read.
    static func validate(bodyText text: [UInt8], members known: [JSONSkim.Member]? = nil,
                         of id: String) throws(StoreError) {
        let skim = JSONSkim(text)
        guard let members = known ?? skim.shallowMembers(of: 0..<text.count) else {
            throw StoreError.invalid("the body of document \(id) must be a JSON object")
        }
        for member in members where member.key.hasPrefix("_") {
            guard member.key == "_attachments" else {
                throw StoreError.invalid("the body of document \(id) must not contain the reserved key \(member.key)")
            }
            let stubs: JSONValue
            do {
                stubs = try skim.parse(member.value)
            } catch {
                throw StoreError.invalid("the _attachments of document \(id) are not valid JSON (\(error))")
            }
            try validateAttachmentStubs(stubs, of: id)
        }
    }
}
