import FPCore
import Foundation
import Testing

@testable import FPCLI
@testable import FPConfig
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

    /// The note is rewritten in place (one file, never replaced) with a check
    /// of the rest; a note whose check disagrees, as a torn one would, is
    /// named and ignored, and one without a check (an older fprint's) is read.
    @Test func theNoteIsRewrittenInPlaceAndATornOneIsKnown() async throws {
        let fp = try FprintRunner()
        let store = try SQLiteDocumentStore(path: fp.db)
        let uuid = try store.databaseUUID()
        try store.close()
        let paths = FPPaths(environment: ["HOME": fp.home.path, "XDG_STATE_HOME": fp.home.appendingPathComponent("state").path])
        let note = LastSyncNote(paths: paths, databaseUUID: uuid)
        try note.write(gateway: "http://gw.example/fprint", sent: 120, received: 3, refused: 0)
        let first = try FileManager.default.attributesOfItem(atPath: note.path)
        try note.write(gateway: "http://gw.example/fprint", sent: 0, received: 0, refused: 0)
        let second = try FileManager.default.attributesOfItem(atPath: note.path)
        #expect(first[.systemFileNumber] as? Int == second[.systemFileNumber] as? Int)
        #expect(second[.posixPermissions] as? Int == 0o600)
        let text = try String(contentsOfFile: note.path, encoding: .utf8)
        #expect(text.hasSuffix("}\n") && text.contains(#""sent":0"#), "\(text)")
        let status = try await fp.run(["status", "--json"])
        let last = try #require(fp.json(status.stdout)["lastSync"] as? [String: Any], "\(status.stdout)")
        #expect(last["sent"] as? Int == 0 && last["check"] == nil)

        // Another count with the old check: what a write cut short could leave.
        try Data(text.replacingOccurrences(of: #""received":0"#, with: #""received":7"#).utf8).write(to: URL(fileURLWithPath: note.path))
        let torn = try await fp.run(["status"])
        #expect(torn.status == 0)
        #expect(torn.stdout.contains("last sync:  never"), "\(torn.stdout)")
        #expect(torn.stderr.contains(note.path) && torn.stderr.contains("torn"), "\(torn.stderr)")
    }
}
