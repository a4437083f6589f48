import FPCore
@testable import FPGateway
@testable import FPStore
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// One damaged stored body costs that document alone: every answer that
/// lists many documents carries the intact ones and names the damaged one.
@Suite struct GatewayDamageTests {
    @Test func damagedBodiesAreNamedAndEveryIntactDocumentServed() async throws {
        let f = try GatewayFixture()
        for id in ["a", "b", "c"] {
            _ = try f.store.edit(id: id, body: ["couchbase_sync_gateway_id": "alice", "n": .string(id)], parent: nil, deleted: false)
        }
        // A zstd frame header followed by garbage: the body no longer decompresses.
        _ = try f.store.rawSQL("UPDATE revisions SET body = X'28B52FFD2000DEADBEEF' WHERE doc_id = 'b'")
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            let all = try await client.call(.get, "/fprint/_all_docs?include_docs=true", token: alice)
            #expect(all.status == .ok)
            let rows = try #require(all.json["rows"]?.arrayValue)
            #expect(rows.count == 3)
            #expect(rows[0]["doc"]?["n"] == "a" && rows[2]["doc"]?["n"] == "c")
            #expect(rows[1]["doc"] == .null)
            #expect(rows[1]["error"]?["error"] == "damaged")

            let bulk = try await client.call(.post, "/fprint/_bulk_get", token: alice,
                                             body: ["docs": [["id": "a"], ["id": "b"], ["id": "c"]]])
            let results = try #require(bulk.json["results"]?.arrayValue)
            #expect(results[0]["docs"]?.arrayValue?.first?["ok"]?["n"] == "a")
            #expect(results[1]["docs"]?.arrayValue?.first?["error"]?["error"] == "damaged")
            #expect(results[1]["docs"]?.arrayValue?.first?["error"]?["id"] == "b")
            #expect(results[2]["docs"]?.arrayValue?.first?["ok"]?["n"] == "c")

            let changes = try await client.call(.get, "/fprint/_changes?include_docs=true", token: alice)
            let feed = try #require(changes.json["results"]?.arrayValue)
            #expect(feed.map { $0["id"] } == ["a", "b", "c"])
            #expect(feed[1]["error"]?["error"] == "damaged")
            #expect(feed[2]["doc"]?["n"] == "c")

            let one = try await client.call(.get, "/fprint/b", token: alice)
            #expect(one.status == .internalServerError)
            #expect(one.json["error"] == "damaged")
            #expect(try await client.call(.get, "/fprint/c", token: alice).status == .ok)
        }
    }
}
