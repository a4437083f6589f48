import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// Mistakes a user makes in the first hour get one line that says what is
/// wrong and where, with the exit code docs/exit-codes.md gives.
@Suite struct ClearErrorsCLITests {
    /// A directory as the database: said so, for readers and writers alike
    /// (they answered "disk I/O error" and a failed journal).
    @Test func aDirectoryAsTheDatabaseIsNamedAsSuch() async throws {
        let fp = try FprintRunner()
        let folder = fp.home.appendingPathComponent("surveys").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for args in [["list"], ["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"]] {
            let r = try await fp.run(args + ["--db", folder])
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(r.stderr == "error: \(folder) (--db) is a directory, not a database file: name a file, e.g. \(folder)/fprint.sqlite\n",
                    "\(args): \(r.stderr)")
        }
        var env = fp
        env.environment["FPRINT_DB"] = folder
        let fromEnvironment = try await env.run(["list"])
        #expect(fromEnvironment.status == 64 && fromEnvironment.stderr.contains("(FPRINT_DB) is a directory"), "\(fromEnvironment.stderr)")
    }

    /// Files that are not there are "not found" (66), as a missing floor-plan picture is.
    @Test func missingInputFilesAreNotFound() async throws {
        let fp = try FprintRunner()
        let missing = fp.home.appendingPathComponent("nothing-here").path
        let imported = try await fp.run(["import", missing + ".json"])
        #expect(imported.status == 66 && imported.stderr == "error: \(missing).json: no such file\n", "\(imported.stderr)")
        let replay = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--ble-source", "btsnoop:\(missing).btsnoop",
                                       "--fast", "--no-wifi", "--no-cell", "--no-location"])
        #expect(replay.status == 66 && replay.stderr == "error: \(missing).btsnoop: no such file\n", "\(replay.stderr)")
        #expect(try fp.storedCount() == 0)
    }

    /// An id prefix that names several documents lists them (the first five) and asks for more of the id.
    @Test func anAmbiguousPrefixListsItsMatches() async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let store = try SQLiteDocumentStore(path: fp.db)
        try store.insert(["ab1", "ab2", "ab3", "ab4", "ab5", "ab6", "cd"].map { NewDocument(id: $0, body: ["x": 1]) })
        for command in ["show", "delete"] {
            let r = try await fp.run([command, "ab"])
            #expect(r.status == 64, "\(command): \(r.stderr)")
            #expect(r.stderr == "error: id prefix ab names 6 documents: ab1, ab2, ab3, ab4, ab5, …; give more of the id\n",
                    "\(command): \(r.stderr)")
        }
        #expect(try store.count() == 7)
    }

    @Test func deletingASyncedDocumentSaysHow() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        let id = try #require(m.lines.first)
        try SQLiteDocumentStore(path: fp.db).markSynced(ids: [id])
        let r = try await fp.run(["delete", id])
        #expect(r.status == 1)
        #expect(r.stderr.contains("already synced") && r.stderr.contains("`fprint delete --synced-too`"), "\(r.stderr)")
    }
}
