import FPCore
import Foundation
import Testing

@testable import FPStore

/// `fprint status`'s last sync: a note outside the database, so that a sync
/// with nothing to move writes nothing to it.
@Suite struct LastSyncNoteCLITests {
    /// A database last synced by an older fprint shows its `_local` record
    /// until a sync writes the note; a broken note is named, not fatal.
    @Test func statusReadsTheNoteElseTheOlderRecord() async throws {
        let fp = try FprintRunner()
        let store = try SQLiteDocumentStore(path: fp.db)
        try store.putLocalDocument(id: "fprint-last-sync", body: [
            "time": "2026-01-02T03:04:05.000Z", "gateway": "http://old.example/fprint", "sent": 3, "received": 4,
            "refused": 0,
        ])
        let uuid = try store.databaseUUID()
        try store.close()
        let old = try await fp.run(["status"])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(old.stdout.contains("last sync:  2026-01-02T03:04:05.000Z with http://old.example/fprint (sent 3, received 4)"),
                "\(old.stdout)")

        let note = fp.home.appendingPathComponent("state/fprint/last-sync/\(uuid).json")
        try FileManager.default.createDirectory(at: note.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"gateway":"http://new.example/fprint","received":0,"refused":0,"sent":1,"time":"2026-11-25T10:00:00.000Z"}"#.utf8)
            .write(to: note)
        let new = try await fp.run(["status", "--json"])
        #expect(new.status == 0, "\(new.stderr)")
        let last = try #require(fp.json(new.stdout)["lastSync"] as? [String: Any])
        #expect(last["gateway"] as? String == "http://new.example/fprint")
        #expect(last["sent"] as? Int == 1)

        try Data("{not json".utf8).write(to: note)
        let broken = try await fp.run(["status"])
        #expect(broken.status == 0)
        #expect(broken.stdout.contains("last sync:  never"), "\(broken.stdout)")
        #expect(broken.stderr.contains(note.path) && broken.stderr.contains("cannot read the last-sync note"), "\(broken.stderr)")
    }
}
