import FPCore
import GRDB

extension SQLiteDocumentStore {
    /// A new document given as its canonical JSON text (a replayed capture's
    /// measurement: 100,000s of BLE entries, tens of MB): checked by
    /// `JSONSkim`, hashed, compressed and stored as it is, never parsed into
    /// a value. Text that is not canonical, and bodies with attachments
    /// (whose bytes `insert` stores beside them), are refused. Returns the
    /// document's first revision.
    package func insert(id: String, canonicalBody text: [UInt8]) throws(StoreError) -> Revision {
        try Self.validate(id: id)
        // Three passes over the text (tens of MB for a replayed capture): the
        // check on one core, the hash and the compression on the other (the
        // check takes about as long as the other two together). Nothing is
        // written unless the check passes.
        let (node, (rev, stored)) = inParallel(
            { JSONSkim(text).value(in: 0..<text.count, levels: 1) },
            { (Revision.next(after: nil, canonicalBody: text), StoredBody.compress(text)) })
        guard let judged = node, judged.isCanonical, judged.value == 0..<text.count, let members = judged.members else {
            throw StoreError.invalid("the body of document \(id) is not canonical JSON text")
        }
        if members.contains(where: { $0.key == "_attachments" }) {
            throw StoreError.invalid("the body of document \(id) has attachments: store it as a value with their bytes")
        }
        try Self.validate(bodyText: text, members: members, of: id)
        let pending = PendingRevision(id: id, canonicalText: text, members: members, parent: nil, rev: rev, stored: stored)
        return try write { db in try Self.insertPending(db, [pending])[0].rev }
    }
}
