import FPCore
import Foundation
import Testing

@testable import FPStore

/// One damaged document costs nothing else (issue 17, part 1).
@Suite struct DamagedBodyTests {
    @Test func aDamagedFrameIsNamedAndEveryOtherDocumentIsRead() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, ids) = try Damage.database(in: folder)
        let expected = try SQLiteDocumentStore(path: path).documentTexts(ListQuery())
        // 2 KB of the 8th document's frame overwritten on disk.
        try Damage.scribbleBody(path, at: Damage.offsetOfBody(ids[7], in: path))

        let store = try SQLiteDocumentStore(path: path, access: .readOnly)
        let read = try store.readDocumentTexts(ListQuery())
        #expect(read.damaged.map(\.id) == [ids[7]])
        #expect(read.documents == expected.filter { $0.id != ids[7] })
        // Single reads say which document, with a type of its own.
        #expect(throws: DamagedDocument.self) { try store.document(id: ids[7], includeDeleted: false) }
        #expect(throws: DamagedDocument.self) { try store.documentTexts(ListQuery()) }
        #expect(try store.document(id: ids[8], includeDeleted: false)?.id == ids[8])
        let rev = try #require(Revision(expected[7].rev))
        #expect(throws: DamagedDocument.self) { try store.revisionText(id: ids[7], rev: rev) }

        let report = try store.check()
        #expect(report.damaged.map(\.id) == [ids[7]])
        #expect(report.bodies == 16 && report.documents == 17)
    }

    /// A damaged page of an index `check` counts through (deletions, pending
    /// documents) is reported, and every body is still read back: `check`
    /// stopped with an error there before.
    @Test(arguments: ["documents_by_import", "documents_pending"])
    func aDamagedCountingIndexIsReportedAndEveryBodyStillRead(index: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, _) = try Damage.database(in: folder)
        let store = try SQLiteDocumentStore(path: path)
        let rows = try store.rawSQL("SELECT rootpage FROM sqlite_master WHERE name = '\(index)'")
        let root = try #require(rows.first?[0].flatMap { Int($0) })
        try store.close()
        // The index's one page gets a page type SQLite does not know.
        try Damage.overwrite(path, at: (root - 1) * Schema.newPageSize, count: 8, byte: 0x5A)

        let report = try SQLiteDocumentStore(path: path, access: .readOnly).check()
        #expect(!report.isSound)
        #expect(report.bodies == 17 && report.documents == 17 && report.damaged.isEmpty, "\(report)")
        #expect(report.sqlite.contains { $0.hasPrefix("counting the documents stopped at a damaged page") }, "\(report.sqlite)")
    }

    @Test func aBrokenOverflowChainIsAPageErrorOfOneDocument() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, ids) = try Damage.database(in: folder)
        // The page holding part of doc-03's frame gets a next-page pointer past
        // the end of the file: SQLite reports the database disk image malformed.
        let offset = try Damage.offsetOfBody(ids[3], in: path)
        let page = offset - offset % Schema.newPageSize
        try Damage.overwrite(path, at: page, count: 4, byte: 0x7F)

        let store = try SQLiteDocumentStore(path: path, access: .readOnly)
        let read = try store.readDocumentTexts(ListQuery())
        #expect(read.damaged.map(\.id) == [ids[3]])
        #expect(read.damaged.first?.reason.contains("page") == true, "\(read.damaged)")
        #expect(read.documents.count == 16)
        #expect(try store.check().damaged.map(\.id).contains(ids[3]))
    }

    /// The issue's own experiment: 4 KB overwritten in the middle of the file.
    @Test func fourKilobytesInTheMiddleCostOnlyWhatTheyHit() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, ids) = try Damage.database(in: folder)
        let expected = try SQLiteDocumentStore(path: path).documentTexts(ListQuery())
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        try Damage.overwrite(path, at: size / 2, count: 4096)

        let read = try SQLiteDocumentStore(path: path, access: .readOnly).readDocumentTexts(ListQuery())
        #expect(!read.damaged.isEmpty && read.damaged.count <= 2)
        #expect(read.documents.count + read.damaged.count == ids.count)
        // What is read is exactly what was stored.
        for doc in read.documents { #expect(expected.first { $0.id == doc.id } == doc) }
    }

    @Test func quarantineKeepsTheRawBytesAndFreesTheRest() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, ids) = try Damage.database(in: folder)
        try Damage.scribbleBody(path, at: Damage.offsetOfBody(ids[5], in: path))
        let store = try SQLiteDocumentStore(path: path)
        let report = try store.check()
        #expect(try store.quarantine(report.damaged) == [ids[5]])

        #expect(try store.check().isSound)
        #expect(try store.count() == 16)
        #expect(try store.readDocumentTexts(ListQuery()).damaged.isEmpty)
        let rows = try store.rawSQL("SELECT doc_id, length(raw_body), reason FROM quarantine")
        #expect(rows.count == 1 && rows[0][0] == ids[5])
        #expect(Int(rows[0][1] ?? "0") ?? 0 > 10_000)  // the damaged frame, byte for byte
        #expect(rows[0][2]?.contains("does not decompress") == true)
    }

    @Test func restoringABodyFromAPeerMendsTheRevision() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, ids) = try Damage.database(in: folder)
        let good = try #require(try SQLiteDocumentStore(path: path).document(id: ids[2], includeDeleted: false))
        try Damage.scribbleBody(path, at: Damage.offsetOfBody(ids[2], in: path))
        let store = try SQLiteDocumentStore(path: path)
        #expect(!(try store.check().isSound))
        try store.restoreBody(RevisionContent(id: ids[2], rev: good.rev, deleted: false, body: good.body, history: [good.rev]))
        #expect(try store.check().isSound)
        #expect(try store.document(id: ids[2], includeDeleted: false) == good)
    }
}
