import FPCore
import Foundation
import GRDB
import Testing

@testable import FPStore

/// `fprint maintenance` on a file as older fprints left it (issue 17, part 7).
@Suite struct MaintenanceTests {
    /// 4 KB pages and plain-text bodies, as before v4 and 64 KB pages.
    func oldDatabase(_ path: String, documents: Int) throws -> [StoredDocument] {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        let store = try SQLiteDocumentStore(writer: queue)
        let stored = try store.insert((0..<documents).map { NewDocument(id: "d\($0)", body: Damage.bulkyBody($0)) })
        try queue.write { db in
            for row in try Row.fetchAll(db, sql: "SELECT rowid, doc_id, body FROM revisions") {
                let text = try StoredBody.decompress(row[2], id: row[1], rev: nil)
                try db.execute(sql: "UPDATE revisions SET body = ? WHERE rowid = ?", arguments: [text, row[0] as Int64])
            }
        }
        try queue.close()
        return stored
    }

    @Test func oldBodiesAreRecompressedAndPagesEnlargedLosingNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sqlite").path
        let stored = try oldDatabase(path, documents: 450)
        var lines: [String] = []
        let report = try SQLiteDocumentStore.maintain(path: path, progress: { lines.append($0) })
        #expect(report.recompressed == 450)
        #expect(report.pageSizeBefore == 4096 && report.pageSizeAfter == Schema.newPageSize)
        #expect(report.bytesAfter < report.bytesBefore, "\(report.bytesBefore) → \(report.bytesAfter)")
        #expect(lines.contains("recompressed 200 of 450 text bodies"))

        let store = try SQLiteDocumentStore(path: path)
        for doc in stored { #expect(try store.document(id: doc.id, includeDeleted: false) == doc) }
        #expect(try store.check().isSound)
        #expect(try store.rawSQL("SELECT count(*) FROM revisions WHERE typeof(body) = 'text'") == [["0"]])
    }

    @Test func stoppingBetweenStepsKeepsWhatIsDone() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sqlite").path
        let stored = try oldDatabase(path, documents: 450)
        var batches = 0
        let report = try SQLiteDocumentStore.maintain(path: path, progress: { _ in batches += 1 },
                                                      shouldStop: { batches >= 1 })
        #expect(!report.finished && report.recompressed == 200)
        let store = try SQLiteDocumentStore(path: path)
        #expect(try store.rawSQL("SELECT count(*) FROM revisions WHERE typeof(body) = 'text'") == [["250"]])
        for doc in stored { #expect(try store.document(id: doc.id, includeDeleted: false) == doc) }
    }

    /// Attachment bytes no stored body names any more go (an edit removed
    /// the attachment, the document was deleted); bytes a body names stay,
    /// a conflicting leaf's included, and so do those of a document whose
    /// body cannot be read.
    @Test func unreferencedAttachmentsAreDroppedAndNamedOnesKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("attachments.sqlite").path
        let store = try SQLiteDocumentStore(path: path)
        func withAttachment(_ text: String) throws -> Attachments.Stubbed {
            try Attachments.stubbing(["x": 1, "_attachments": ["raw.btsnoop": [
                "content_type": "application/octet-stream", "data": .string(Data(text.utf8).base64EncodedString()),
            ]]], revpos: 1, keepDigests: false)
        }
        let kept = try withAttachment("still named")
        try store.edit(id: "kept", body: kept.body, parent: nil, deleted: false, attachmentData: kept.data)
        for id in ["edited", "gone", "damaged"] {
            let doc = try withAttachment("bytes of \(id)")
            let first = try store.edit(id: id, body: doc.body, parent: nil, deleted: false, attachmentData: doc.data)
            try store.edit(id: id, body: id == "gone" ? [:] : ["x": 2], parent: first, deleted: id == "gone", attachmentData: [:])
        }
        let branch = try withAttachment("on a conflicting leaf")
        let (aa, bb) = (try #require(Revision("1-aa")), try #require(Revision("1-bb")))
        try store.putReplicated([
            RevisionContent(id: "conflict", rev: aa, deleted: false, body: branch.body, history: [aa], attachmentData: branch.data),
            RevisionContent(id: "conflict", rev: bb, deleted: false, body: ["x": 3], history: [bb]),
        ], markSynced: false)
        #expect(try store.rawSQL("SELECT doc_id FROM attachments ORDER BY doc_id")
                == [["conflict"], ["damaged"], ["edited"], ["gone"], ["kept"]])
        _ = try store.rawSQL("UPDATE revisions SET body = x'00112233' WHERE doc_id = 'damaged' AND body IS NOT NULL")
        try store.close()

        let report = try SQLiteDocumentStore.maintain(path: path, progress: { _ in })
        #expect(report.attachmentsDropped == 2 && report.attachmentBytesDropped > 0)
        let after = try SQLiteDocumentStore(path: path)
        #expect(try after.rawSQL("SELECT doc_id FROM attachments ORDER BY doc_id") == [["conflict"], ["damaged"], ["kept"]])
        #expect(try after.attachmentBytes(id: "kept", digest: try #require(kept.data.keys.first)) == Array("still named".utf8))
        #expect(try after.attachmentBytes(id: "conflict", digest: try #require(branch.data.keys.first))
                == Array("on a conflicting leaf".utf8))
        #expect(try after.document(id: "edited", includeDeleted: false)?.body == ["x": 2])
    }
}
