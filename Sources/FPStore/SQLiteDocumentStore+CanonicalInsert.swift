import FPCore
import Foundation
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
        return try insertFirst(id: id, text: text, members: members, rev: rev, stored: stored)
    }

    /// A new document given as canonical text this process wrote with
    /// FPCore's writer, and the top-level members it recorded writing it
    /// (`MeasurementDocument.canonicalText`): stored without the text being
    /// read again, the hash and the compression side by side. For a
    /// replayed capture's document the check was the longest of three
    /// passes and kept the hash and the compression on one core. The
    /// writer's text is pinned to `CanonicalJSON.bytes` of the value by
    /// tests; reserved keys and attachments are still refused.
    package func insert(id: String, ownText text: [UInt8], members: [JSONSkim.Member]) throws(StoreError) -> Revision {
        try Self.validate(id: id)
        let (rev, stored) = inParallel({ Revision.next(after: nil, canonicalBody: text) }, { StoredBody.compress(text) })
        return try insertFirst(id: id, text: text, members: members, rev: rev, stored: stored)
    }

    private func insertFirst(id: String, text: [UInt8], members: [JSONSkim.Member], rev: Revision, stored: Data)
        throws(StoreError) -> Revision
    {
        if members.contains(where: { $0.key == "_attachments" }) {
            throw StoreError.invalid("the body of document \(id) has attachments: store it as a value with their bytes")
        }
        try Self.validate(bodyText: text, members: members, of: id)
        let pending = PendingRevision(id: id, canonicalText: text, members: members, parent: nil, rev: rev, stored: stored)
        return try write { db in try Self.insertPending(db, [pending])[0].rev }
    }
}
