import FPCore
import FPStore
import Foundation
import Testing

/// Attachments a document received (from a peer, or a gateway) are listed
/// by `show` and written out byte for byte by `export attachments`.
@Suite struct AttachmentCLITests {
    @Test func showListsAndExportWritesThemInsideTheDirectory() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                            "--duration", "5"]).status == 0)
        let capture: [UInt8] = Array("btsnoop\0".utf8) + [0, 0, 0, 1, 0, 0, 3, 0xEA]
        let hostile: [UInt8] = Array("not outside".utf8)
        let id: String
        do {
            let store = try SQLiteDocumentStore(path: fp.db)
            let doc = try #require(try store.list(ListQuery()).first)
            id = doc.id
            let stored = try #require(try store.document(id: id, includeDeleted: false))
            var body = stored.body
            body["_attachments"] = [
                "capture.btsnoop": Attachments.stub(contentType: "application/vnd.btsnoop", digest: Attachments.digest(of: capture),
                                                    length: capture.count, revpos: 2),
                "../escape": Attachments.stub(contentType: "text/plain", digest: Attachments.digest(of: hostile),
                                              length: hostile.count, revpos: 2),
            ]
            try store.edit(id: id, body: body, parent: stored.rev, deleted: false,
                           attachmentData: [Attachments.digest(of: capture): capture, Attachments.digest(of: hostile): hostile])
        }
        let show = try await fp.run(["show", id])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("capture.btsnoop (application/vnd.btsnoop, \(capture.count) bytes)"), "\(show.stdout)")

        let dir = fp.home.appendingPathComponent("atts")
        let export = try await fp.run(["export", "attachments", "--output", dir.path])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("wrote 2 attachments"))
        let folder = dir.appendingPathComponent(ExportAttachmentsName.encode(id))
        #expect(try [UInt8](Data(contentsOf: folder.appendingPathComponent("capture.btsnoop"))) == capture)
        #expect(try [UInt8](Data(contentsOf: folder.appendingPathComponent("%2E.%2Fescape"))) == hostile)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("escape").path))

        // jsonl carries the bytes inline, so an import elsewhere has them too.
        let file = fp.home.appendingPathComponent("with-attachments.jsonl")
        #expect(try await fp.run(["export", "jsonl", "--output", file.path]).status == 0)
        var other = fp
        let otherDB = fp.home.appendingPathComponent("other.sqlite").path
        other.environment["FPRINT_DB"] = otherDB
        let imported = try await other.run(["import", file.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let copy = try SQLiteDocumentStore(path: otherDB)
        #expect(try copy.attachmentBytes(id: id, digest: Attachments.digest(of: capture)) == capture)
        #expect(try copy.document(id: id, includeDeleted: false)?.body["_attachments"]
                == (try SQLiteDocumentStore(path: fp.db).document(id: id, includeDeleted: false)?.body["_attachments"]))

        let missing = try await fp.run(["export", "attachments"])
        #expect(missing.status != 0 && missing.stderr.contains("--output DIR"))
    }
}

/// The test's copy of the rule (ids of measurements have no "/" or leading ".").
enum ExportAttachmentsName {
    static func encode(_ id: String) -> String { id }
}
