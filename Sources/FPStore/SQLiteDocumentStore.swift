import FPCore
import Foundation
import GRDB

/// The SQLite document store: one JSON document per measurement, with the
/// revision tree, update sequence and `_local` documents that CouchDB-style
/// replication needs.
///
/// A facade in the GRDB "AppDatabase" shape: it owns one `DatabaseWriter`
/// (a WAL `DatabasePool` for the gateway, a WAL `DatabaseQueue` for a
/// command, a `DatabaseQueue` for read-only opens, filesystems without
/// shared memory and in-memory tests; `StoreOpening`),
/// migrates the schema when opened, and runs every public write as one
/// transaction, so a batch is stored whole or not at all, even when the
/// process is killed mid-write. GRDB types never leave this module: every
/// method throws `StoreError` only (database errors become `.io`).
package struct SQLiteDocumentStore: DocumentStore, Sendable {
    let writer: any DatabaseWriter
    /// What opening had to settle for (rollback journal, immutable), nil when nothing.
    package let openNote: StoreOpenNote?

    /// Opens (or creates) the database file at `path` for reading and
    /// writing, with readers beside the writer, creating missing parent
    /// folders (the gateway's default). Commands choose with `init(path:access:)`.
    package init(path: String) throws {
        try self.init(path: path, access: .readWriteShared(createFolders: true))
    }

    /// `migratingUpTo` stops at an older migration than the latest: tests
    /// build an old-schema database with it and then upgrade it.
    init(path: String, migratingUpTo target: String?) throws {
        try Self.prepareNewFile(path, createFolders: true)
        let (writer, note) = try Self.openWritable(path, walOpener: Self.openWALPool)
        try self.init(writer: writer, migratingUpTo: target, note: note)
    }

    /// A fresh in-memory store with the production configuration and schema.
    package static func inMemory() throws -> SQLiteDocumentStore {
        do {
            return try SQLiteDocumentStore(writer: DatabaseQueue(configuration: makeConfiguration()))
        } catch {
            throw translate(error)
        }
    }

    /// Wraps an open database and brings its schema up to date (read-only:
    /// only checks that this fprint can read it).
    init(writer: any DatabaseWriter, migratingUpTo target: String? = nil, readOnly: Bool = false,
         note: StoreOpenNote? = nil) throws {
        self.writer = writer
        self.openNote = note
        let migrator = Schema.migrator
        try guarded {
            // A newer fprint wrote the file; reading or writing it with the old
            // code could misread it or break its invariants.
            // One read transaction for the three questions every command asks.
            let (version, superseded, complete) = try writer.read { db in
                (try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0, try migrator.hasBeenSuperseded(db),
                 try migrator.hasCompletedMigrations(db))
            }
            if version > Schema.formatVersion {
                throw Self.newerFormat(version)
            }
            if superseded {
                throw StoreError.invalid(
                    "the database was created by a newer version of fprint; update fprint to open it")
            }
            if readOnly { return }
            if let target {
                try migrator.migrate(writer, upTo: target)
            } else if !complete {
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
            // 8 KB pages for new databases (SQLite applies it only to an empty
            // file). 64 KB pages paid off for plain-text bodies of hundreds of
            // KB; zstd bodies are ~16 KB, and with 64 KB an empty database took
            // 1.2 MB (one page per table and index), too much for small media.
            try db.execute(sql: "PRAGMA page_size = \(Schema.newPageSize)")
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

    // MARK: - Error boundary

    /// Runs `work`, turning every error into a `StoreError`, except a
    /// `DamagedDocument`, which readers of many documents skip and name.
    func guarded<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let damaged as DamagedDocument {
            throw damaged
        } catch {
            throw Self.translate(error)
        }
    }

    /// One write transaction: committed when `updates` returns, rolled back when it throws.
    func write<T>(_ updates: (Database) throws -> T) throws(StoreError) -> T {
        try translated { try writer.write(updates) }
    }

    /// One read that goes on past damaged pages: the snapshot is ended with
    /// a rollback, since SQLite refuses to commit a transaction in which a
    /// statement met a damaged page, even a read-only one.
    func readPastDamage<T>(_ value: (Database) throws -> T) throws -> T {
        try guarded { try deferredRead(ending: .rollback, value) }
    }

    /// `value` in a deferred transaction of its own, ended by `completion`.
    private func deferredRead<T>(ending completion: Database.TransactionCompletion,
                                 _ value: (Database) throws -> T) throws -> T {
        try writer.unsafeRead { db in
            var result: T?
            try db.inTransaction(.deferred) {
                result = try value(db)
                return completion
            }
            guard let result else { throw StoreError.io("a read ended without its result") }
            return result
        }
    }

    /// One read, isolated from concurrent writes, of anything but bodies.
    func read<T>(_ value: (Database) throws -> T) throws(StoreError) -> T {
        try translated { try snapshot(value) }
    }

    /// One read in a snapshot. On a queue, GRDB's `read` sets `PRAGMA
    /// query_only` around the work, and SQLite expires every prepared
    /// statement when such a flag changes: each read compiled its cached
    /// statements again (a third of a push's CPU, reading one revision per
    /// read). A deferred transaction gives the same snapshot without it. A
    /// pool's readers are read-only connections: no pragma there.
    func snapshot<T>(_ value: (Database) throws -> T) throws -> T {
        guard writer is DatabaseQueue else { return try writer.read(value) }
        return try deferredRead(ending: .commit, value)
    }

    /// Runs `work`, turning every error into a `StoreError`.
    func translated<T>(_ work: () throws -> T) throws(StoreError) -> T {
        do {
            return try work()
        } catch {
            throw Self.translate(error)
        }
    }

    /// One read of stored bodies: a body that cannot be read throws its
    /// `DamagedDocument`, every other failure a `StoreError`.
    func readBody<T>(_ value: (Database) throws -> T) throws -> T {
        try guarded { try snapshot(value) }
    }

    static func translate(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let damaged as DamagedDocument:
            // Met where no body is read (a damaged page under an index, say).
            return .io(damaged.description)
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
