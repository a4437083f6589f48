import CStatfs
import FPCore
import Foundation
import GRDB
import SystemPackage

/// How a database file is opened: read-only for commands that only read
/// (so a 0444 file or a read-only mount still opens, and a typo never
/// creates a file), read-write for those that store.
package enum StoreAccess: Sendable {
    case readOnly
    /// One connection, for a command. Opening writes nothing, so a command
    /// that changes nothing (a sync with nothing to move) makes no write and
    /// no fsync at all. `createFolders`: make missing parent folders (the
    /// default XDG location only: an explicit path in a folder that does not
    /// exist is a typo).
    case readWrite(createFolders: Bool)
    /// A writer beside a pool of readers, for a server whose clients read
    /// while another one's documents are stored (the gateway).
    case readWriteShared(createFolders: Bool)
}

/// What opening had to settle for, for the command to say in one line.
package enum StoreOpenNote: Sendable, Equatable {
    /// WAL needs shared memory the filesystem lacks (9p, some NFS): a rollback journal is used.
    case rollbackJournal(reason: String)
    /// Read-only media: opened immutable (SQLite takes no locks and trusts nobody writes).
    case immutable
}

extension SQLiteDocumentStore {
    /// Opens the database at `path` for `access`. A read-only open never
    /// creates or changes anything; a missing file is `StoreError.notFound`
    /// with the path as id.
    package init(path: String, access: StoreAccess) throws {
        let shared = if case .readWriteShared = access { true } else { false }
        try self.init(path: path, access: access, walOpener: shared ? Self.openWALPool : Self.openWALQueue)
    }

    /// `walOpener` lets a test make WAL fail the way 9p does.
    init(path: String, access: StoreAccess, walOpener: (String) throws -> any DatabaseWriter) throws {
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, let version = Self.headerFormatVersion(path), version > Schema.formatVersion {
            throw Self.newerFormat(version)
        }
        switch access {
        case .readOnly:
            guard exists else { throw StoreError.notFound(id: path) }
            let (queue, note) = try Self.openReadOnly(path)
            try self.init(writer: queue, readOnly: true, note: note)
        case .readWrite(let createFolders), .readWriteShared(let createFolders):
            // A new file appears whole (`createWithSchema`), or, where that
            // cannot be done, empty and migrated by the open below.
            if !exists, try !Self.createWithSchema(path, createFolders: createFolders) {
                try Self.prepareNewFile(path, createFolders: createFolders)
            }
            let (writer, note) = try Self.openWritable(path, walOpener: walOpener)
            try self.init(writer: writer, readOnly: false, note: note)
        }
    }

    static func newerFormat(_ version: Int) -> StoreError {
        .invalid("the database is in format \(version), written by a newer fprint; this fprint reads formats up to \(Schema.formatVersion): update fprint to open it")
    }

    // MARK: - Read-only

    static func openReadOnly(_ path: String) throws -> (DatabaseQueue, StoreOpenNote?) {
        var config = makeConfiguration()
        config.readonly = true
        // SQLite reads a WAL database read-only when its -shm can be made or
        // already exists; otherwise (read-only media, a folder we may not
        // write) the file is opened immutable: no locks, the -wal unread.
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return (queue, nil)
        } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_IOERR].contains(error.resultCode) {
            // Immutable below.
        } catch {
            throw StoreError.io("cannot open the database \(path): \(translate(error))")
        }
        do {
            let queue = try DatabaseQueue(path: immutableURI(path), configuration: config)
            try queue.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return (queue, .immutable)
        } catch {
            throw StoreError.io("cannot open the database \(path) read-only: \(translate(error))")
        }
    }

    /// `file:` URI with `immutable=1` (Debian's SQLite accepts URIs in open).
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(escaped)?immutable=1"
    }

    // MARK: - Read-write

    /// A missing file: its folder must exist unless we may create it; the
    /// file is made empty with mode 0600 (measurements carry device ids and
    /// locations; SQLite gives `-wal`/`-shm` the mode of the database).
    /// True when this call made the file, false when it was there already
    /// (another process made it meanwhile).
    @discardableResult
    static func prepareNewFile(_ path: String, createFolders: Bool) throws -> Bool {
        try prepareFolder(of: path, createFolders: createFolders)
        do {
            // Created 0600 here, before SQLite would create it with the umask's mode.
            let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                                             permissions: [.ownerReadWrite])
            try fd.close()
            return true
        } catch let failure as Errno where failure == .fileExists {
            return false
        } catch {
            throw StoreError.io("cannot create the database \(path): \(error)")
        }
    }

    /// The folder that will hold a new database `path`: it must exist, unless
    /// we may create it.
    static func prepareFolder(of path: String, createFolders: Bool) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard createFolders else {
                throw StoreError.invalid("its folder \(folder.path) does not exist: create it first, or check the path")
            }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("cannot create the folder for the database \(path): \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw StoreError.invalid("\(folder.path) is not a folder, so it cannot hold the database \(path)")
        }
    }

    /// One connection in WAL mode (set here for a new file; SQLite keeps it
    /// in the file). Not GRDB's pool: the pool writes at every open (it
    /// re-creates the `-wal` SQLite deletes at close: a commit, a directory
    /// fsync and a checkpoint at close), 10–40 ms on a busy disk.
    static func openWALQueue(_ path: String) throws -> any DatabaseWriter {
        let queue = try DatabaseQueue(path: path, configuration: makeConfiguration())
        try queue.writeWithoutTransaction { db in
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            // Where the shared memory cannot be mapped for writing (9p), SQLite
            // still reads, and only a write would fail: take the write lock
            // now (nothing is written), so opening fails and falls back.
            try db.inTransaction(.immediate) { .rollback }
        }
        return queue
    }

    /// GRDB's pool: readers beside the writer.
    static func openWALPool(_ path: String) throws -> any DatabaseWriter {
        let pool = try DatabasePool(path: path, configuration: makeConfiguration())
        // The pool sets `synchronous = NORMAL` on its writer after our
        // configuration ran (GRDB's setUpWALMode): back to FULL, or a commit
        // the gateway answered 201 for could be lost to a power cut.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        // 9p maps the shared memory only at the first access: touch it now.
        try pool.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        return pool
    }

    /// What SQLite answers where its WAL cannot work here (no shared memory
    /// for its index): a rollback journal is used instead.
    static let walFailures: [ResultCode] = [.SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY]

    /// WAL (readers never wait for a walk being stored) where the filesystem
    /// gives SQLite shared memory; a rollback journal where it does not.
    static func openWritable(_ path: String, walOpener: (String) throws -> any DatabaseWriter) throws
        -> (any DatabaseWriter, StoreOpenNote?)
    {
        var reason: String
        if let kind = FileSystemInfo.withoutSharedMemory(path) {
            reason = "\(kind) gives SQLite no shared memory for its write-ahead log"
        } else {
            do {
                return (try walOpener(path), nil)
            } catch let error as DatabaseError where walFailures.contains(error.resultCode) {
                reason = "SQLite's write-ahead log failed here (\(error.message ?? "disk I/O error"))"
            } catch {
                throw StoreError.io("cannot open the database \(path): \(translate(error))")
            }
        }
        do {
            return (try openRollbackJournal(path), .rollbackJournal(reason: reason))
        } catch {
            throw StoreError.io("cannot open the database \(path) (\(reason), and a rollback journal failed too): \(translate(error))")
        }
    }

    /// One connection with a rollback journal. A file already in WAL mode is
    /// converted under an exclusive lock, for which SQLite keeps the WAL
    /// index in process memory instead of the shared-memory file.
    static func openRollbackJournal(_ path: String) throws -> DatabaseQueue {
        var first = Configuration()
        // Before anything reads the file: a WAL header would otherwise send
        // SQLite to the shared-memory file that fails here.
        first.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA locking_mode = NORMAL")
            // NORMAL takes effect (the exclusive lock goes) at the next access.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
        }
        return try DatabaseQueue(path: path, configuration: makeConfiguration(first))
    }

    /// `PRAGMA user_version` straight from the file header (bytes 60–63), so
    /// a newer file is refused before any connection could touch it.
    static func headerFormatVersion(_ path: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
              header.starts(with: Array("SQLite format 3".utf8) + [0]) else { return nil }
        return header[60..<64].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// Facts about the filesystem under a path, from statfs(2) and statvfs(3).
enum FileSystemInfo {
    /// Filesystems whose shared memory SQLite's WAL cannot use, by name; nil
    /// otherwise. By the filesystem's magic number (linux/magic.h): one system
    /// call, where reading /proc/self/mounts cost a millisecond at every open.
    static func withoutSharedMemory(_ path: String) -> String? {
        var info = statfs()
        guard statfs(URL(fileURLWithPath: path).deletingLastPathComponent().path, &info) == 0 else { return nil }
        switch UInt32(truncatingIfNeeded: info.f_type) {
        case 0x0102_1997: return "this 9p filesystem (a VM's shared folder)"
        case 0x6969: return "this NFS filesystem"
        case 0x517B, 0xFF53_4D42, 0xFE53_4D42: return "this SMB/CIFS filesystem"
        default: return nil
        }
    }

    static func isMountedReadOnly(_ path: String) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}
