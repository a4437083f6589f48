import FPCore
import Foundation
import GRDB

/// The SQLite document store: one JSON document per measurement, with the
/// revision tree, update sequence and `_local` documents that CouchDB-style
/// replication needs.
///
/// A facade in the GRDB "AppDatabase" shape: it owns one `DatabaseWriter`
/// (a WAL `DatabasePool` for files, an in-memory `DatabaseQueue` for tests),
/// migrates the schema when opened, and runs every public write as one
/// transaction, so a batch is stored whole or not at all, even when the
/// process is killed mid-write. GRDB types never leave this module: every
/// method throws `StoreError` only (database errors become `.io`).
public struct SQLiteDocumentStore: DocumentStore, Sendable {
    let writer: any DatabaseWriter

    /// Opens (or creates) the database file at `path` in WAL mode, creating
    /// missing parent folders. A new file is created readable by its owner only
    /// (0600): measurements carry device ids and locations.
    public init(path: String) throws {
        try self.init(path: path, migratingUpTo: nil)
    }

    /// `migratingUpTo` stops at an older migration than the latest: tests
    /// build an old-schema database with it and then upgrade it.
    init(path: String, migratingUpTo target: String?) throws {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw StoreError.io("cannot create the folder for the database \(path): \(error.localizedDescription)")
        }
        try Self.createPrivateFile(atPath: path)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.makeConfiguration())
        } catch {
            throw StoreError.io("cannot open the database \(path): \(Self.translate(error))")
        }
        try self.init(writer: pool, migratingUpTo: target)
    }

    /// A fresh in-memory store with the production configuration and schema.
    public static func inMemory() throws -> SQLiteDocumentStore {
        do {
            return try SQLiteDocumentStore(writer: DatabaseQueue(configuration: makeConfiguration()))
        } catch {
            throw translate(error)
        }
    }

    /// Wraps an open database and brings its schema up to date.
    init(writer: any DatabaseWriter, migratingUpTo target: String? = nil) throws {
        self.writer = writer
        let migrator = Schema.migrator
        try guarded {
            // A migration this build does not know means a newer fprint wrote
            // the file; writing with the old code could break its invariants.
            if try writer.read(migrator.hasBeenSuperseded) {
                throw StoreError.invalid(
                    "the database was created by a newer version of fprint; update fprint to open it")
            }
            if let target {
                try migrator.migrate(writer, upTo: target)
            } else if try !writer.read(migrator.hasCompletedMigrations) {
                // Only when something is pending: migrating takes the write lock and
                // checks the schema, which `fprint list` should not pay on every start.
                try migrator.migrate(writer)
            }
        }
    }

    /// The one configuration of every connection, in production and in tests.
    static func makeConfiguration(_ base: Configuration = Configuration()) -> Configuration {
        var config = base
        // Trust SQLite more than ourselves: the schema's foreign keys must hold.
        config.foreignKeysEnabled = true
        // Another fprint process (`list` while a walk is being stored) waits
        // for the lock instead of failing at once.
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            // 64 KB pages instead of 4 KB: bodies are tens to hundreds of
            // kilobytes, and short overflow-page chains halve SQLite's share of
            // storing a 223 KB walk document (measured in `make bench`). SQLite
            // applies it only while the file is still empty (new databases);
            // older databases keep their page size.
            try db.execute(sql: "PRAGMA page_size = 65536")
            // FULL: every commit is fsynced to the WAL before it returns, so a
            // measurement reported as stored survives even a power loss (a
            // surveyor's laptop running flat mid-walk). NORMAL would already
            // be atomic and survive a crash or SIGKILL of the process, but could
            // roll back the last commits on power loss. Measured on the dev VM:
            // no difference beyond noise for 80 KB walk documents, and a walk
            // commits once per window, so the fsync is cheap insurance.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            if ProcessInfo.processInfo.environment["FPRINT_SQL_TRACE"] != nil {
                // Debug aid only: statements go to stderr, stdout stays clean.
                db.trace { event in
                    FileHandle.standardError.write(Data("SQL: \(event)\n".utf8))
                }
            }
        }
        return config
    }

    /// Creates the database file empty with mode 0600 unless it exists.
    /// SQLite gives its -wal and -shm files the mode of the database file.
    private static func createPrivateFile(atPath path: String) throws {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw StoreError.io("cannot create the database \(path): \(String(cString: strerror(errno)))")
        }
    }

    // MARK: - Error boundary

    /// Runs `work`, turning every error into a `StoreError`.
    func guarded<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch {
            throw Self.translate(error)
        }
    }

    /// One write transaction: committed when `updates` returns, rolled back when it throws.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        try guarded { try writer.write(updates) }
    }

    /// One read, isolated from concurrent writes.
    func read<T>(_ value: (Database) throws -> T) throws -> T {
        try guarded { try writer.read(value) }
    }

    static func translate(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as DatabaseError:
            let message = error.message ?? "\(error.resultCode)"
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return .io("the database is locked by another fprint process: \(message)")
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return .io("the database file is damaged or not an fprint database: \(message)")
            case .SQLITE_FULL:
                return .io("the disk is full: \(message)")
            default:
                return .io("database error: \(message)")
            }
        default:
            return .io("database error: \(error)")
        }
    }
}
