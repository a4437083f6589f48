import FPCore
import Foundation
import Testing
@testable import FPStore

/// Revisions that arrive as text are stored without a parse: the store must
/// keep the same text, columns and checks as for parsed ones.
@Suite struct CanonicalTextStoreTests {
    func bodies() -> [JSONValue] {
        var odd = measurementBody(position: (363.25, 701.5), sessionId: "s1", seq: 7, ble: 3, wifi: 0, cells: 2, fixes: 1)
        odd["bleScans"] = "not an array"  // columns fall back, as for a parsed body
        odd["numbers"] = try! JSONParser.parse(Array(#"[1.0,-0,1.5e-7,123456789012345678901]"#.utf8))
        return [measurementBody(), measurementBody(position: (1.5, 2.5), ble: 40, wifi: 12, fixes: 3), odd, [:]]
    }

    @Test func summaryFromTextEqualsSummaryFromTheValue() throws {
        for body in bodies() {
            let text = CanonicalJSON.bytes(body)
            let checked = try #require(JSONSkim(text).value(in: 0..<text.count, levels: 1))
            #expect(Summary(bodyText: text) == Summary(body: body))
            #expect(Summary(bodyText: text, members: checked.members) == Summary(body: body))
        }
    }

    @Test func replicatedTextIsStoredAsItCameWithTheSameColumns() throws {
        let viaText = try SQLiteDocumentStore.inMemory(), viaValue = try SQLiteDocumentStore.inMemory()
        for (n, body) in bodies().enumerated() {
            let rev = try #require(Revision("1-\(String(repeating: "a", count: 31))\(n)"))
            var doc = try #require(body.objectValue)
            doc["_id"] = .string("d\(n)")
            doc["_rev"] = .string(rev.description)
            let text = CanonicalJSON.bytes(.object(doc))
            let skim = JSONSkim(text)
            let document = try #require(skim.value(in: 0..<text.count, levels: 1))
            let content = try #require(try RevisionContent.received(skim, document: document)?.content)
            try viaText.putReplicated([content], markSynced: false)
            try viaValue.putReplicated([RevisionContent(id: "d\(n)", rev: rev, deleted: false, body: body, history: [rev])],
                                       markSynced: false)
            #expect(try viaText.revisionText(id: "d\(n)", rev: rev)?.bodyText == CanonicalJSON.string(body))
        }
        #expect(try viaText.list(ListQuery()) == viaValue.list(ListQuery()))
        #expect(try viaText.list(ListQuery()).count == bodies().count)
    }

    @Test func textWithReservedKeysIsRefused() throws {
        let store = try SQLiteDocumentStore.inMemory()
        let rev = try #require(Revision("1-abc"))
        let bad = RevisionContent(id: "x", rev: rev, deleted: false, bodyText: Array(#"{"_rev":"1-x","a":1}"#.utf8),
                                  history: [rev])
        expectStoreError(.invalid("the body of document x must not contain the reserved key _rev")) {
            try store.putReplicated([bad], markSynced: false)
        }
        #expect(try store.document(id: "x", includeDeleted: true) == nil)
    }

    /// An update given as text is stored as it is when canonical; other text
    /// goes through the value, so either way the stored text is canonical
    /// (an update is a revision fprint makes).
    @Test func updatesGivenAsTextAreStoredCanonical() throws {
        let store = try SQLiteDocumentStore.inMemory()
        let stored = try store.insert([NewDocument(id: "a", body: measurementBody()), NewDocument(id: "b", body: measurementBody())])
        var signed = measurementBody()
        signed["couchbase_sync_gateway_id"] = "ana"
        let canonical = CanonicalJSON.bytes(signed)
        let spaced = Array(" { \"z\" : 1 , \"a\" : [ 1 ] } ".utf8)
        let applied = try store.updateWhereCurrent([
            DocumentUpdate(id: "a", canonicalBody: canonical, expected: stored[0].rev),
            DocumentUpdate(id: "b", canonicalBody: spaced, expected: stored[1].rev),
        ])
        #expect(applied.map(\.id) == ["a", "b"])
        #expect(applied[0].rev == Revision.next(after: stored[0].rev, canonicalBody: canonical))
        #expect(try store.document(id: "a", includeDeleted: false)?.body == signed)
        #expect(try store.revisionText(id: "b", rev: applied[1].rev)?.bodyText == #"{"a":[1],"z":1}"#)
        expectStoreError(.invalid("the body of document a is not valid JSON (not valid JSON near line 1, column 2: unexpected end of the document)")) {
            try store.updateWhereCurrent([DocumentUpdate(id: "a", canonicalBody: Array("{".utf8), expected: applied[0].rev)])
        }
    }
}
