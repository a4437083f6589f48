import FPCore
import Foundation
import GRDB
import SystemPackage

extension SQLiteDocumentStore {
    /// Creates the database `path` with its whole schema in one step, before
    /// it is opened like any other; false where that cannot be done here
    /// (the caller then makes an empty file, which the usual open migrates).
    /// Migrated in place, the switch to WAL and each migration's commit
    /// wrote and synced the WAL, and a checkpoint truncated it: ~8 ms of I/O
    /// whenever a command (an import, a replay into a new file) creates a
    /// store. Here the schema is built in a file of this process's own
    /// (`<path>.creating-<pid>`, mode 0600 like the store) with the journal
    /// in memory and no fsync, switched to WAL, synced once, and linked
    /// into place under the store's name (~3 ms). So the name only ever
    /// names a whole store: a crash leaves at most the building file, and a
    /// process that creates the same store at the same moment finds it
    /// complete (`link` does not replace; the first one made is kept).
    ///
    /// False where WAL fails (a filesystem without shared memory) or the
    /// filesystem has no hard links (FAT).
    static func createWithSchema(_ path: String, createFolders: Bool) throws -> Bool {
        try prepareFolder(of: path, createFolders: createFolders)
        if FileSystemInfo.withoutSharedMemory(path) != nil { return false }
        let building = path + ".creating-\(getpid())"
        defer { unlink(building) }
        do {
            try makeOwnerOnlyFile(building)
        } catch {
            throw StoreError.io("cannot create the database \(path): \(error)")
        }
        do {
            let queue = try DatabaseQueue(path: building, configuration: makeConfiguration())
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = OFF")
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = MEMORY")
            }
            try Schema.migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            try queue.close()
            try syncFile(building)
        } catch let error as DatabaseError where walFailures.contains(error.resultCode) {
            return false
        } catch {
            throw StoreError.io("cannot create the database \(path): \(translate(error))")
        }
        if link(building, path) != 0 {
            switch errno {
            case EEXIST: return true  // made by another process meanwhile: that one is kept
            case EPERM, EOPNOTSUPP, ENOSYS: return false  // no hard links here
            case let code: throw StoreError.io("cannot create the database \(path): \(Errno(rawValue: code))")
            }
        }
        try syncFile(URL(fileURLWithPath: path).deletingLastPathComponent().path, what: "the folder of the new database \(path)")
        return true
    }

    /// An empty file at `path`, mode 0600, in place of what a crashed
    /// creation of the same process id left there. (A log left beside it
    /// SQLite deletes unread: it never replays a WAL into an empty file.)
    private static func makeOwnerOnlyFile(_ path: String) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate, .closeOnExec],
                                         permissions: [.ownerReadWrite])
        try fd.close()
    }

    /// fsync of a file or folder: the new file's content and name survive a
    /// power cut.
    private static func syncFile(_ path: String, what: String? = nil) throws {
        do {
            let fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
            defer { try? fd.close() }
            guard fsync(fd.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            throw StoreError.io("cannot sync \(what ?? path): \(error)")
        }
    }
}
