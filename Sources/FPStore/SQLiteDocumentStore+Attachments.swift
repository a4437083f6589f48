import FPCore
import Foundation
import GRDB

/// Attachment bytes beside the revision bodies (table `attachments`, v6):
/// bodies hold stubs, this table the bytes, once per document and digest.
extension SQLiteDocumentStore {
    package func attachmentBytes(id: String, digest: String) throws -> [UInt8]? {
        try readBody { db in
            let statement = try db.cachedStatement(sql: "SELECT data FROM attachments WHERE doc_id = ? AND digest = ?")
            guard let frame = try Data.fetchOne(statement, arguments: [id, digest]) else { return nil }
            return try StoredBody.decompressBytes(frame, id: id, rev: nil, what: "attachment \(digest)")
        }
    }

    package func hasAttachment(id: String, digest: String) throws(StoreError) -> Bool {
        try read { db in try Self.hasAttachment(db, id: id, digest: digest) }
    }

    static func hasAttachment(_ db: Database, id: String, digest: String) throws -> Bool {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM attachments WHERE doc_id = ? AND digest = ?")
        return try Bool.fetchOne(statement, arguments: [id, digest]) != nil
    }

    /// Every stub of a body to be stored must be an object with a digest.
    static func validateAttachmentStubs(_ attachments: JSONValue, of id: String) throws(StoreError) {
        guard let entries = attachments.objectValue else {
            throw StoreError.invalid("the _attachments of document \(id) must be an object")
        }
        for (name, entry) in entries where entry["stub"]?.boolValue != true || entry["digest"]?.stringValue == nil {
            throw StoreError.invalid("attachment \(name) of document \(id) must be stored as a stub with a digest")
        }
    }

    /// Stores the bytes new with `content`, then checks that every stub of its
    /// body names bytes this store has: a revision never points at nothing.
    static func storeAttachments(_ db: Database, _ content: RevisionContent) throws {
        // A body received as text is parsed only if it may hold stubs.
        if let text = content.bodyText, !Attachments.mayHaveAttachments(text) {
            return try storeAttachments(db, id: content.id, body: [:], data: content.attachmentData)
        }
        try storeAttachments(db, id: content.id, body: content.body, data: content.attachmentData)
    }

    static func storeAttachments(_ db: Database, id: String, body: JSONValue, data: [String: [UInt8]]) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO attachments (doc_id, digest, data) VALUES (?, ?, ?)")
        for (digest, bytes) in data {
            try insert.execute(arguments: [id, digest, StoredBody.compress(bytes)])
        }
        for stub in Attachments.stubs(of: body) where try !hasAttachment(db, id: id, digest: stub.digest) {
            throw StoreError.invalid(
                "attachment \(stub.name) of document \(id) is a stub of bytes this store does not have (\(stub.digest))")
        }
    }

    /// Drops attachment bytes no stored body names any more (an edit that
    /// removed the attachment, a deleted document, a pruned conflict), one
    /// document per transaction; returns how many rows and compressed bytes
    /// went. Bytes are kept whenever a body naming them might exist: every
    /// revision that still has a body is read, and a document any of whose
    /// bodies cannot be read keeps all its attachments.
    func dropUnreferencedAttachments(shouldStop: () -> Bool) throws -> (rows: Int, bytes: Int64) {
        let ids = try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT doc_id FROM attachments") }
        var dropped = (rows: 0, bytes: Int64(0))
        for id in ids where !shouldStop() {
            let gone = try write { db -> (Int, Int64) in
                guard let named = try Self.digestsNamed(db, id: id) else { return (0, 0) }
                let rows = try Row.fetchAll(db, sql: "SELECT digest, length(data) FROM attachments WHERE doc_id = ?",
                                            arguments: [id])
                var freed = (0, Int64(0))
                for row in rows where !named.contains(row[0] as String) {
                    try db.execute(sql: "DELETE FROM attachments WHERE doc_id = ? AND digest = ?", arguments: [id, row[0] as String])
                    freed.0 += 1
                    freed.1 += row[1] as Int64
                }
                return freed
            }
            dropped.rows += gone.0
            dropped.bytes += gone.1
        }
        return dropped
    }

    /// The digests the bodies of `id`'s revisions name; nil when one of them
    /// cannot be read (then nothing of the document's may go).
    private static func digestsNamed(_ db: Database, id: String) throws -> Set<String>? {
        var named = Set<String>()
        for (rev, value) in try Row.fetchAll(db, sql: "SELECT rev, body FROM revisions WHERE doc_id = ? AND body IS NOT NULL",
                                             arguments: [id]).map({ ($0[0] as String, $0[1] as DatabaseValue) }) {
            guard let text = try? StoredBody.text(value, id: id, rev: rev) else { return nil }
            let bytes = Array(text.utf8)
            guard Attachments.mayHaveAttachments(bytes) else { continue }
            guard let body = try? CanonicalJSON.parse(text) else { return nil }
            named.formUnion(Attachments.stubs(of: body).map(\.digest))
        }
        return named
    }
}
