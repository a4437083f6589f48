import FPCore
@testable import FPStore
import Foundation
import Testing

/// `insert(id:canonicalBody:)` stores text as it is: the same revision,
/// summary and body as inserting the value, and nothing for text that is
/// not canonical or not a usable body.
@Suite struct CanonicalInsertTests {
    @Test func textAndValueGiveTheSameDocument() throws {
        let body = measurementBody(level: "J2NP", mode: "walk", sessionId: "S1", seq: 3, ble: 40, note: "ünïcode")
        let byValue = try SQLiteDocumentStore.inMemory(), byText = try SQLiteDocumentStore.inMemory()
        let stored = try byValue.insert([NewDocument(id: "m1", body: body)])
        let rev = try byText.insert(id: "m1", canonicalBody: CanonicalJSON.bytes(body))
        #expect(rev == stored[0].rev)
        #expect(try byText.document(id: "m1", includeDeleted: false)?.body == body)
        #expect(try byText.list(ListQuery()) == byValue.list(ListQuery()))
    }

    /// Text this process wrote, with the members it recorded, is stored as
    /// checked text is: the same revision, summary and body.
    @Test func ownTextGivesTheSameDocumentAsCheckedText() throws {
        let body = measurementBody(level: "J2NP", mode: "walk", sessionId: "S1", seq: 3, ble: 40, note: "ünïcode")
        let text = CanonicalJSON.bytes(body)
        let members = try #require(JSONSkim(text).members(of: 0..<text.count))
        let checked = try SQLiteDocumentStore.inMemory(), own = try SQLiteDocumentStore.inMemory()
        let rev = try checked.insert(id: "m1", canonicalBody: text)
        #expect(try own.insert(id: "m1", ownText: text, members: members) == rev)
        #expect(try own.document(id: "m1", includeDeleted: false)?.body == body)
        #expect(try own.list(ListQuery()) == checked.list(ListQuery()))
        // Reserved keys and attachments are refused all the same, and nothing is stored.
        for refused in [#"{"_rev":"1-x","a":1}"#, #"{"_attachments":{},"a":1}"#] {
            let bytes = Array(refused.utf8)
            let members = try #require(JSONSkim(bytes).members(of: 0..<bytes.count))
            #expect(throws: StoreError.self) { try own.insert(id: "m2", ownText: bytes, members: members) }
        }
        #expect(try own.count() == 1)
    }

    @Test func textThatIsNotACanonicalBodyStoresNothing() throws {
        let store = try SQLiteDocumentStore.inMemory()
        let refused: [[UInt8]] = [
            Array(#"{"b":1,"a":2}"#.utf8),  // keys out of order
            Array(#"{"a": 1}"#.utf8),  // white space
            Array(#"[1,2]"#.utf8),  // not an object
            Array(#"{"_id":"x","a":1}"#.utf8),  // a reserved key
            Array(#"{"a":1"#.utf8),  // cut short
        ]
        for text in refused {
            do {
                _ = try store.insert(id: "m1", canonicalBody: text)
                Issue.record("stored \(String(decoding: text, as: UTF8.self))")
            } catch StoreError.invalid {}
        }
        #expect(try store.count() == 0)
        // The id is checked like any other
        do {
            _ = try store.insert(id: "_bad", canonicalBody: Array(#"{"a":1}"#.utf8))
            Issue.record("stored a document with a reserved id")
        } catch StoreError.invalid {}
        // A second document with the same id is a conflict, and the first stays
        _ = try store.insert(id: "m1", canonicalBody: Array(#"{"a":1}"#.utf8))
        expectStoreError(.conflict(id: "m1")) { try store.insert(id: "m1", canonicalBody: Array(#"{"a":2}"#.utf8)) }
        #expect(try store.document(id: "m1", includeDeleted: false)?.body == ["a": 1])
    }

    /// `insertNew` (`fprint import`) takes a new document as canonical text
    /// too: the same revision, body and summary as the value, and its
    /// reserved keys refused the same way.
    @Test func aNewDocumentGivenAsTextIsStoredAsTheValueWouldBe() throws {
        let body = measurementBody(level: "J2NP", mode: "walk", sessionId: "S1", seq: 3, ble: 40, note: "ünïcode")
        let text = CanonicalJSON.bytes(body)
        let members = try #require(JSONSkim(text).value(in: 0..<text.count, levels: 1)?.members)
        let byValue = try SQLiteDocumentStore.inMemory(), byText = try SQLiteDocumentStore.inMemory()
        var handed = false
        func once(_ document: NewDocument) -> () throws -> [NewDocument]? {
            handed = false
            return {
                defer { handed = true }
                return handed ? nil : [document]
            }
        }
        #expect(try byValue.insertNew(once(NewDocument(id: "m1", body: body))).inserted == 1)
        #expect(try byText.insertNew(once(NewDocument(id: "m1", canonicalText: text, members: members))).inserted == 1)
        #expect(try byText.document(id: "m1", includeDeleted: false)?.body == body)
        #expect(try byText.document(id: "m1", includeDeleted: false)?.rev == byValue.document(id: "m1", includeDeleted: false)?.rev)
        #expect(try byText.list(ListQuery()) == byValue.list(ListQuery()))

        let reserved = Array(#"{"_rev":"1-x","a":1}"#.utf8)
        let reservedMembers = try #require(JSONSkim(reserved).value(in: 0..<reserved.count, levels: 1)?.members)
        #expect(throws: StoreError.self) {
            try byText.insertNew(once(NewDocument(id: "m2", canonicalText: reserved, members: reservedMembers)))
        }
        #expect(try byText.count() == 1)

        // A stub naming bytes the store does not have is refused, as for a value.
        let stub = Array(#"{"_attachments":{"a.txt":{"content_type":"text/plain","digest":"md5-AAAAAAAAAAAAAAAAAAAAAA==","length":1,"stub":true}},"x":1}"#.utf8)
        let stubMembers = try #require(JSONSkim(stub).value(in: 0..<stub.count, levels: 1)?.members)
        let byValueStub = NewDocument(id: "m3", body: try JSONParser.parse(stub))
        #expect(throws: (any Error).self) { try byValue.insertNew(once(byValueStub)) }
        #expect(throws: (any Error).self) {
            try byText.insertNew(once(NewDocument(id: "m3", canonicalText: stub, members: stubMembers)))
        }
        #expect(try byText.count() == 1 && byValue.count() == 1)
    }

    /// An import into a file, batch by batch, with its WAL synced beside
    /// it: every document is stored, and the connection's page cache is
    /// SQLite's default again afterwards (the import's 8 MiB is its own).
    @Test func anImportIntoAFileStoresEveryBatchAndGivesBackTheCache() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("import.sqlite").path
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        var batch = 0
        let count = try store.insertNew { () -> [NewDocument]? in
            defer { batch += 1 }
            guard batch < 5 else { return nil }
            return (0..<20).map { k in
                NewDocument(id: "b\(batch)-\(k)", body: measurementBody(seq: Int64(batch * 20 + k), ble: 30))
            }
        }
        #expect(count == SQLiteDocumentStore.NewDocumentCount(inserted: 100, alreadyPresent: 0))
        #expect(try store.rawSQL("PRAGMA cache_size") == [["-2000"]])  // SQLite's default
        try store.close()
        let reader = try SQLiteDocumentStore(path: path, access: .readOnly)
        #expect(try reader.count() == 100)
    }

    /// The WAL's syncs on another thread do nothing without a WAL (a
    /// rollback journal), and end without waiting when dropped.
    @Test func theWALSyncsNeedAWAL() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = WALWriteback(databasePath: folder.appendingPathComponent("none.sqlite").path)
        missing.start()
        let path = folder.appendingPathComponent("x.sqlite").path
        FileManager.default.createFile(atPath: path + "-wal", contents: Data(repeating: 7, count: 4096))
        var writeback: WALWriteback? = WALWriteback(databasePath: path)
        for _ in 0..<3 { writeback?.start() }
        writeback = nil
        #expect(SQLiteDocumentStore.fileBytes(path + "-wal") == 4096)
    }
}
