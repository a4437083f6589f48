import FPCore
import FPStore
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
}
