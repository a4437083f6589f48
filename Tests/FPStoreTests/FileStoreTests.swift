import FPCore
import Foundation
import Testing

@testable import FPStore

/// A database file on disk: identity, reopening, migrations, permissions.
@Suite struct FileStoreTests {
    @Test func databaseUUIDIsStableAcrossReopenAndNewPerDatabase() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Given a database file and its UUID
        let path = folder.appendingPathComponent("a.sqlite").path
        let uuid = try SQLiteDocumentStore(path: path).databaseUUID()
        #expect(UUID(uuidString: uuid) != nil)
        // When it is reopened, then the UUID is the same
        #expect(try SQLiteDocumentStore(path: path).databaseUUID() == uuid)
        // And a new database (or the same path after a wipe) gets another one
        #expect(try SQLiteDocumentStore(path: folder.appendingPathComponent("b.sqlite").path).databaseUUID() != uuid)
        try FileManager.default.removeItem(atPath: path)
        #expect(try SQLiteDocumentStore(path: path).databaseUUID() != uuid)
    }

    @Test func reopeningKeepsDataAndDoesNotRerunMigrations() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fp.sqlite").path
        // Given a database with a document, a local document and a UUID
        let body = measurementBody()
        let stored: StoredDocument
        let uuid: String
        do {
            let store = try SQLiteDocumentStore(path: path)
            stored = try #require(try store.insert([NewDocument(id: "a", body: body)]).first)
            try store.putLocalDocument(id: "cp", body: ["seq": 1])
            uuid = try store.databaseUUID()
        }
        // When it is opened again
        let reopened = try SQLiteDocumentStore(path: path)
        // Then the schema is the latest, each migration ran once, and the data is intact
        #expect(try reopened.schemaVersion() == "v9")
        #expect(try reopened.rawSQL("SELECT identifier FROM grdb_migrations ORDER BY identifier") == [["v1"], ["v2"], ["v3"], ["v4"], ["v5"], ["v6"], ["v7"], ["v8"], ["v9"]])
        #expect(try reopened.document(id: "a", includeDeleted: false) == stored)
        #expect(try reopened.localDocument(id: "cp") == ["seq": 1])
        #expect(try reopened.databaseUUID() == uuid)
        #expect(try reopened.integrityCheck().isEmpty)
        // And the sequence continues where it stopped
        let next = try reopened.insert([NewDocument(id: "b", body: body)])
        #expect(next.first?.seq == 2)
    }

    @Test func v1DatabaseIsUpgradedInPlace() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("old.sqlite").path
        // Given a database with the v1 schema holding a document, a tombstone and a local document
        let uuid: String
        let stored: StoredDocument
        do {
            let old = try SQLiteDocumentStore(path: path, migratingUpTo: "v1")
            #expect(try old.schemaVersion() == "v1")
            stored = try #require(try old.insert([
                NewDocument(id: "keep", body: measurementBody(createdAt: "2026-11-21T10:00:00.000Z")),
                NewDocument(id: "gone", body: measurementBody(note: "gone")),
            ]).first)
            try old.delete(id: "gone")
            try old.putLocalDocument(id: "cp", body: ["seq": 3])
            uuid = try old.databaseUUID()
            // Bodies as fprint wrote them before v4: plain canonical text
            let text = CanonicalJSON.string(stored.body).replacingOccurrences(of: "'", with: "''")
            _ = try old.rawSQL("UPDATE revisions SET body = '\(text)' WHERE doc_id = 'keep'")
            #expect(try old.rawSQL("SELECT typeof(body) FROM revisions WHERE doc_id = 'keep'") == [["text"]])
        }
        // When the current fprint opens it
        let store = try SQLiteDocumentStore(path: path)
        // Then it is migrated to the latest schema with everything kept
        #expect(try store.schemaVersion() == "v9")
        #expect(try store.document(id: "keep", includeDeleted: false) == stored)
        #expect(try store.document(id: "gone", includeDeleted: true)?.deleted == true)
        #expect(try store.list(ListQuery()).map(\.id) == ["keep"])
        #expect(try store.localDocument(id: "cp") == ["seq": 3])
        #expect(try store.databaseUUID() == uuid)
        #expect(try store.lastSequence() == 3)
        #expect(try store.integrityCheck().isEmpty)
        // And the v1 listing index was replaced by the covering one
        let indexes = try store.rawSQL("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents'")
            .compactMap { $0.first ?? nil }
        #expect(indexes.contains("documents_list") && !indexes.contains("documents_by_time"), "\(indexes)")
    }

    @Test func databaseFromNewerFprintIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("fp.sqlite").path
        // Given a database on which a future migration has run
        do {
            let store = try SQLiteDocumentStore(path: path)
            _ = try store.rawSQL("INSERT INTO grdb_migrations VALUES ('v99')")
        }
        // When this fprint opens it, then it refuses instead of writing to it
        do {
            _ = try SQLiteDocumentStore(path: path)
            Issue.record("a database from a newer fprint was opened")
        } catch StoreError.invalid(let why) {
            #expect(why.contains("newer version of fprint"))
        }
    }

    @Test func newDatabaseFileIsPrivateAndFoldersAreCreated() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Given a path under folders that do not exist yet
        let path = folder.appendingPathComponent("x/y/fp.sqlite").path
        // When a store is created and written
        let store = try SQLiteDocumentStore(path: path)
        try store.insert([NewDocument(id: "a", body: measurementBody())])
        // Then the file and its WAL are readable by the owner only
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber)
            #expect(mode.intValue & 0o777 == 0o600, "\(file) has mode \(String(mode.intValue, radix: 8))")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "a file database runs in WAL mode")
    }

    @Test func fileThatIsNotADatabaseGivesAnIOError() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("junk.sqlite").path
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteDocumentStore(path: path)
            Issue.record("a junk file was opened as a database")
        } catch StoreError.io(let why) {
            #expect(why.contains(path))
        }
    }
}

/// Invariants of the schema that the public API does not show.
@Suite struct StorageLayoutTests {
    let store: SQLiteDocumentStore

    init() throws {
        store = try SQLiteDocumentStore.inMemory()
    }

    @Test func supersededRevisionsKeepNoBody() throws {
        // Given a document with three revisions, the last a tombstone
        let r1 = try #require(try store.insert([NewDocument(id: "a", body: measurementBody())]).first).rev
        let r2 = try store.update(id: "a", body: measurementBody(note: "2"), expected: r1).rev
        try store.delete(id: "a")
        // Then only the leaf keeps a body, and the tree links each revision to its parent
        let rows = try store.rawSQL("""
            SELECT rev, parent_rev, generation, deleted, body IS NOT NULL FROM revisions ORDER BY generation
            """)
        let r3 = try #require(try store.document(id: "a", includeDeleted: true)).rev
        #expect(rows == [
            [r1.description, nil, "1", "0", "0"],
            [r2.description, r1.description, "2", "0", "0"],
            [r3.description, r2.description, "3", "1", "1"],
        ])
    }

    @Test func bodiesAreStoredCompressedAndReadBack() throws {
        // Given a walk-like body: many BLE reports repeating addresses and beacon ids
        var body = measurementBody()
        var reports: [JSONValue] = []
        for i in 0..<400 {
            var beacon: JSONObject = ["type": "ibeacon", "uuid": "FB0B57A2-8228-44CD-913A-94A122BA1206", "major": 1]
            beacon["minor"] = .int(Int64(i % 20))
            var report: JSONObject = ["address": .string("C4:7C:8D:00:00:\(i % 20)"), "beacon": .object(beacon)]
            report["rssi"] = .int(Int64(-50 - i % 40))
            report["time"] = .int(Int64(i * 10))
            reports.append(.object(report))
        }
        body["bleScans"] = .array(reports)
        let stored = try #require(try store.insert([NewDocument(id: "w", body: body)]).first)
        // Then the row holds a zstd frame many times smaller than the text
        let row = try store.rawSQL("SELECT typeof(body), length(body) FROM revisions WHERE doc_id = 'w'")
        let canonicalSize = CanonicalJSON.bytes(body).count
        #expect(row.first?.first == "blob")
        #expect((row.first?[1]).flatMap { $0.flatMap(Int.init) }.map { $0 * 5 < canonicalSize } == true)
        // And every reader gets the canonical text or body back
        #expect(try store.document(id: "w", includeDeleted: false) == stored)
        #expect(try store.revisionText(id: "w", rev: stored.rev)?.bodyText == CanonicalJSON.string(body))
        #expect(try store.documentTexts(ListQuery()).first?.body == CanonicalJSON.string(body))
    }

    @Test func aDamagedBodyIsAnErrorNotACrash() throws {
        let stored = try #require(try store.insert([NewDocument(id: "d", body: measurementBody())]).first)
        let frame = try #require(try store.rawSQL("SELECT hex(body) FROM revisions WHERE doc_id = 'd'").first?.first ?? nil)
        // One byte flipped in the middle (zstd's checksum catches it), then garbage with a zstd magic number
        var bytes = Array(frame)
        let middle = bytes.count / 2 & ~1
        bytes[middle] = bytes[middle] == "0" ? "1" : "0"
        for damaged in [String(bytes), "28B52FFD00", "00"] {
            _ = try store.rawSQL("UPDATE revisions SET body = X'\(damaged)' WHERE doc_id = 'd'")
            // A type of its own, naming the revision, so bulk readers can skip it.
            let damage = DamagedDocument(id: "d", rev: stored.rev.description, reason: "it does not decompress")
            #expect(throws: damage) { _ = try store.document(id: "d", includeDeleted: false) }
            #expect(throws: damage) { _ = try store.revisionText(id: "d", rev: stored.rev) }
        }
    }

    @Test func changesTableKeepsOneRowPerDocument() throws {
        let stored = try store.insert(["a", "b"].map { NewDocument(id: $0, body: measurementBody(note: $0)) })
        try store.update(id: "a", body: measurementBody(note: "a2"), expected: stored[0].rev)
        #expect(try store.rawSQL("SELECT seq, doc_id FROM changes ORDER BY seq") == [["2", "b"], ["3", "a"]])
        #expect(try store.integrityCheck().isEmpty)
    }

    @Test func listUsesTheCoveringIndex() throws {
        // `list` must not scan, sort or visit the table: the plan walks documents_list only.
        let plan = try store.rawSQL("""
            EXPLAIN QUERY PLAN
            SELECT id, rev, created_at_ms, created_at, level, mode, x, y, session_id, walk_seq,
                   ble_count, wifi_count, cell_count, geo_count, synced
            FROM documents WHERE deleted = 0 AND synced = 0 ORDER BY created_at_ms DESC, id LIMIT 50
            """).compactMap { $0.last ?? nil }
        #expect(plan.contains { $0.contains("COVERING INDEX documents_list") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    @Test(arguments: [("ab", "ac"), ("a\u{10FFFF}", "b"), ("\u{10FFFF}", nil), ("\u{D7FF}", "\u{E000}")] as [(String, String?)])
    func prefixUpperBound(prefix: String, bound: String?) {
        #expect(SQLiteDocumentStore.prefixUpperBound(prefix) == bound)
    }
}
