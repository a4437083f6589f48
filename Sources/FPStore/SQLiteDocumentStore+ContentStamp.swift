import FPCore
import GRDB

extension SQLiteDocumentStore {
    /// What the stored documents are, in one line: this database's uuid, the
    /// update sequence's high-water mark (AUTOINCREMENT: never lowered, never
    /// reused, raised by every write of a document), the live documents and
    /// the revisions stored. Any change to any document changes it, so a value
    /// derived from the documents and kept under their stamp is current while
    /// the stamp is (eval's packed radiomap, `RadiomapCache`).
    package func contentStamp() throws(StoreError) -> String {
        try read { db in
            let uuid = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'database_uuid'") ?? ""
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'changes'") ?? 0
            let live = try Int64.fetchOne(db, sql: "SELECT count(*) FROM documents WHERE deleted = 0") ?? 0
            let revisions = try Int64.fetchOne(db, sql: "SELECT count(*) FROM revisions") ?? 0
            return "\(uuid)|\(sequence)|\(live)|\(revisions)"
        }
    }
}
