import FPCore
import Foundation
import Testing

@testable import FPStore

/// Read-only files and mounts, missing paths, newer files, filesystems
/// without shared memory, small new files (issue 17, parts 3–6).
@Suite(.serialized) struct OpeningTests {
    func storeWithOneDocument(_ folder: URL, name: String = "f.sqlite") throws -> String {
        let path = folder.appendingPathComponent(name).path
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        try store.close()
        return path
    }

    @Test func aReadOnlyFileOpensReadOnly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try storeWithOneDocument(folder)
        chmod(path, 0o444)
        chmod(folder.path, 0o555)  // no -shm can be made beside it either
        defer { chmod(folder.path, 0o755) }
        let store = try SQLiteDocumentStore(path: path, access: .readOnly)
        #expect(try store.list(ListQuery()).map(\.id) == ["a"])
        #expect(try store.document(id: "a", includeDeleted: false)?.body == measurementBody())
        // Opened read-only: even root, whom file modes do not stop, cannot write through it.
        #expect(throws: StoreError.self) { try store.insert([NewDocument(id: "b", body: measurementBody())]) }
    }

    @Test(.enabled(if: Damage.isRoot, "needs root to mount a tmpfs and remount it read-only"))
    func aReadOnlyMountOpensImmutable() async throws {
        let mount = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: mount) }
        #expect(try await Damage.shell(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.path]) == 0)
        let path = try storeWithOneDocument(mount)
        // As a copied database arrives: the file alone, no -shm to read through.
        for suffix in ["-shm", "-wal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let remounted = try await Damage.shell(["mount", "-o", "remount,ro", mount.path])
        let checked = Result { try Self.opensImmutable(path, remounted: remounted) }
        _ = try? await Damage.shell(["umount", mount.path])
        try checked.get()
    }

    /// What the read-only mount must allow and refuse (the mount is undone after, whatever these find).
    static func opensImmutable(_ path: String, remounted: Int32) throws {
        #expect(remounted == 0)
        #expect(FileSystemInfo.isMountedReadOnly(path))
        let store = try SQLiteDocumentStore(path: path, access: .readOnly)
        #expect(store.openNote == .immutable)
        #expect(try store.list(ListQuery()).map(\.id) == ["a"])
        #expect(try store.readDocumentTexts(ListQuery()).documents.count == 1)
        #expect(throws: StoreError.self) { try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false)) }
    }

    @Test func readingAMissingPathCreatesNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("typo.sqlite").path
        expectStoreError(.notFound(id: path)) { try SQLiteDocumentStore(path: path, access: .readOnly) }
        #expect(!FileManager.default.fileExists(atPath: path))
        // An explicit path in a folder that does not exist is refused, not made.
        let deep = folder.appendingPathComponent("no/such/folder/db.sqlite").path
        #expect(throws: StoreError.self) { try SQLiteDocumentStore(path: deep, access: .readWrite(createFolders: false)) }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("no").path))
        _ = try SQLiteDocumentStore(path: deep, access: .readWrite(createFolders: true))
        #expect(FileManager.default.fileExists(atPath: deep))
    }

    @Test func aNewerFormatIsRefusedNamingBothVersions() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try storeWithOneDocument(folder)
        let store = try SQLiteDocumentStore(path: path)
        #expect(try store.rawSQL("PRAGMA user_version") == [["9"]])
        _ = try store.rawSQL("PRAGMA user_version = 99")
        try store.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for access in [StoreAccess.readOnly, .readWrite(createFolders: false)] {
            do {
                _ = try SQLiteDocumentStore(path: path, access: access)
                Issue.record("a format-99 database was opened")
            } catch let StoreError.invalid(why) {
                #expect(why.contains("format 99") && why.contains("up to \(Schema.formatVersion)"), "\(why)")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// SQLite cannot map its shared-memory file (here a folder stands where
    /// `-shm` goes, as 9p refuses the mapping): WAL fails, a rollback journal works.
    @Test func withoutSharedMemoryARollbackJournalIsUsed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("9p.sqlite").path
        try FileManager.default.createDirectory(atPath: path + "-shm", withIntermediateDirectories: false)
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        guard case .rollbackJournal(let reason)? = store.openNote else {
            Issue.record("expected the rollback-journal fallback, got \(String(describing: store.openNote))")
            return
        }
        #expect(reason.contains("write-ahead log"))
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        #expect(try store.rawSQL("PRAGMA journal_mode") == [["delete"]])
        try store.close()
        let reader = try SQLiteDocumentStore(path: path, access: .readOnly)
        #expect(try reader.list(ListQuery()).map(\.id) == ["a"])
    }

    /// A WAL file moved onto such a filesystem is converted, not refused.
    @Test func aWALFileIsConvertedWhenSharedMemoryFails() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try storeWithOneDocument(folder)
        try? FileManager.default.removeItem(atPath: path + "-shm")
        try FileManager.default.createDirectory(atPath: path + "-shm", withIntermediateDirectories: false)
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        #expect(store.openNote != nil)
        #expect(try store.rawSQL("PRAGMA journal_mode") == [["delete"]])
        #expect(try store.list(ListQuery()).map(\.id) == ["a"])
    }

    @Test func aNewDatabaseStaysUnder256KB() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("new.sqlite").path
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        let size = { (p: String) in (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0 }
        let open = size(path) + size(path + "-wal") + size(path + "-shm")
        try store.close()
        #expect(size(path) < 256 * 1024, "\(size(path)) bytes")
        #expect(open < 512 * 1024, "\(open) bytes with -wal and -shm")
        print("new empty database: \(size(path)) bytes closed, \(open) bytes open with -wal and -shm")
    }

    /// A new file gets its whole schema before the command's connection
    /// opens it: built beside it with fsync off, synced once and renamed
    /// over the empty file, so nothing of it waits in the WAL, the file's own
    /// header is at the current format and nothing of the building is left.
    /// (Migrated the usual way, the schema sat in the WAL, each migration
    /// synced on its own.) The gateway's pool writes into the WAL at every
    /// open, so only its header is looked at.
    @Test func aNewFileHoldsItsWholeSchemaInItself() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (n, access) in [StoreAccess.readWrite(createFolders: false), .readWriteShared(createFolders: false)].enumerated() {
            let path = folder.appendingPathComponent("new\(n).sqlite").path
            let store = try SQLiteDocumentStore(path: path, access: access)
            if n == 0 { #expect(SQLiteDocumentStore.fileBytes(path + "-wal") == 0) }
            #expect(SQLiteDocumentStore.headerFormatVersion(path) == Schema.formatVersion, "\(access)")
            #expect(try store.rawSQL("SELECT count(*) FROM grdb_migrations") == [["9"]])
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".creating") }
            #expect(left.isEmpty, "left behind: \(left)")
            try store.insert([NewDocument(id: "a", body: measurementBody())])
            try store.close()
            let reader = try SQLiteDocumentStore(path: path, access: .readOnly)
            #expect(try reader.list(ListQuery()).map(\.id) == ["a"])
        }
    }

    /// What a creation killed midway leaves: its building file, with its
    /// log, under a name with that process's id. A later process with the
    /// same id builds afresh over it (the log holding another database's
    /// document is not replayed into the new store) and leaves nothing.
    /// An empty file, as a creation on a filesystem without hard links
    /// leaves it, is migrated in place by the next open.
    @Test func aCreationKilledMidwayLeavesNothingThatHarmsTheNext() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("a.sqlite").path
        let second = folder.appendingPathComponent("b.sqlite").path
        let other = try SQLiteDocumentStore(path: first, access: .readWrite(createFolders: false))
        try other.insert([NewDocument(id: "a", body: measurementBody())])
        #expect(SQLiteDocumentStore.fileBytes(first + "-wal") > 0)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: first + suffix, toPath: second + ".creating-\(getpid())" + suffix)
        }
        try other.close()

        let store = try SQLiteDocumentStore(path: second, access: .readWrite(createFolders: false))
        #expect(try store.rawSQL("SELECT count(*) FROM grdb_migrations") == [["9"]])
        #expect(try store.count() == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".creating") }
        #expect(left.isEmpty, "left behind: \(left)")

        FileManager.default.createFile(atPath: first + ".empty", contents: nil)
        let empty = try SQLiteDocumentStore(path: first + ".empty", access: .readWrite(createFolders: false))
        #expect(try empty.rawSQL("SELECT count(*) FROM grdb_migrations") == [["9"]])
    }

    @Test func theWriteCheckLeavesNothingBehind() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try storeWithOneDocument(folder)
        let store = try SQLiteDocumentStore(path: path)
        let seq = try store.lastSequence()
        try store.checkWritable()
        #expect(try store.count() == 1)
        #expect(try store.lastSequence() == seq)
        // A store that cannot take the probe says so before anything is recorded.
        _ = try store.rawSQL("CREATE TRIGGER no_writes BEFORE INSERT ON revisions BEGIN SELECT RAISE(ABORT, 'no'); END")
        #expect(throws: StoreError.self) { try store.checkWritable() }
    }

    /// A command's open writes nothing, so a sync with nothing to move leaves
    /// the file as it was. (GRDB's pool wrote a table into the log at every
    /// open and checkpointed it into the file at close.)
    @Test func aCommandsOpenAndCloseLeaveTheFileAsItWas() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try storeWithOneDocument(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        #expect(try store.list(ListQuery()).map(\.id) == ["a"])
        #expect(SQLiteDocumentStore.fileBytes(path + "-wal") == 0)
        try store.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// Every writable open, a command's and the gateway's, commits with
    /// `synchronous = FULL` in WAL mode: a document reported stored survives
    /// a power cut. (GRDB's pool had set its writer back to NORMAL.)
    @Test func everyWritableOpenSyncsEachCommit() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (n, access) in [StoreAccess.readWrite(createFolders: false), .readWriteShared(createFolders: false)].enumerated() {
            for existing in [false, true] {
                let path = folder.appendingPathComponent("s\(n).sqlite").path
                let store = try SQLiteDocumentStore(path: path, access: access)
                #expect(try store.rawSQL("PRAGMA synchronous") == [["2"]], "\(access), existing file: \(existing)")
                #expect(try store.rawSQL("PRAGMA journal_mode") == [["wal"]], "\(access), existing file: \(existing)")
                try store.insert([NewDocument(id: "d\(existing)", body: measurementBody())])
                try store.close()
            }
        }
    }
}
