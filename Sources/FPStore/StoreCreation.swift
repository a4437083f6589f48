import FPCore
import Foundation
import GRDB
import SystemPackage

extension SQLiteDocumentStore {
    /// Gives a file this process has just created empty its whole schema in
    /// one step, before it is opened like any other. Migrated the usual way,
    /// the switch to WAL and each of the migrations synced on its own: 14
    /// fsyncs whenever a command (an import, a replay into a new file)
    /// creates a store, ~1 ms each on the dev VM's disk and far more on a
    /// laptop's. Here they run with fsync off (4 remain): the file
    /// holds nothing to lose, and WAL keeps it consistent through a crash
    /// (a power cut meanwhile leaves an empty store that the next open
    /// migrates again). Then one checkpoint with fsync on writes the schema
    /// into the file and syncs it, and the folder is synced for its name.
    ///
    /// Where WAL fails (a filesystem without shared memory that statfs did
    /// not name), nothing is thrown: the usual opening falls back to a
    /// rollback journal and migrates what is missing.
    static func createSchema(_ path: String) throws {
        do {
            let queue = try DatabaseQueue(path: path, configuration: makeConfiguration())
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = OFF")
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            try Schema.migrator.migrate(queue)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
            try queue.close()
        } catch let error as DatabaseError where walFailures.contains(error.resultCode) {
            return
        } catch {
            throw StoreError.io("cannot create the database \(path): \(translate(error))")
        }
        try syncFolder(of: path)
    }

    /// fsync of the folder holding `path`, so the new file's name survives a
    /// power cut as its content does.
    private static func syncFolder(of path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            let fd = try FileDescriptor.open(folder, .readOnly, options: [.closeOnExec])
            defer { try? fd.close() }
            guard fsync(fd.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            throw StoreError.io("cannot sync the folder of the new database \(path): \(error)")
        }
    }
}
