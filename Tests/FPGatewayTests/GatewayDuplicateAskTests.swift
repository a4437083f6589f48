import FPCore
@testable import FPGateway
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// A revision asked for several times, directly or through `latest=true`,
/// is answered once (CouchDB 3.5 answers `open_revs` so too); found
/// revisions come first, in the order first asked, then the missing ones.
/// The bounds in memory are tested on the real binary (`GatewayAnswerBoundsTests`).
@Suite struct GatewayDuplicateAskTests {
    static func list(_ revs: [String]) -> String { "%5B" + revs.map { "%22\($0)%22" }.joined(separator: ",") + "%5D" }

    @Test func openRevsAndBulkGetAnswerEachRevisionOnce() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        let (a, b, c) = ("1-\(hashA)", "2-\(hashB)", "2-\(hashC)")
        try await f.app.test(.router) { client in
            // Two conflicting leaves on one root; C wins.
            let push = try await client.call(.post, "/fprint/_bulk_docs", token: alice, body: [
                "new_edits": false,
                "docs": [
                    doc("m1", owner: "alice", note: "B", extra: ["_rev": .string(b), "_revisions": ["start": 2, "ids": [.string(hashB), .string(hashA)]]]),
                    doc("m1", owner: "alice", note: "C", extra: ["_rev": .string(c), "_revisions": ["start": 2, "ids": [.string(hashC), .string(hashA)]]]),
                ],
            ])
            #expect(push.status == .created)
            func revs(_ answer: Answer) -> [JSONValue] {
                (answer.json.arrayValue ?? []).map { $0["ok"]?["_rev"] ?? $0["missing"] ?? .null }
            }
            let open = try await client.call(.get, "/fprint/m1?open_revs=\(Self.list([c, "9-x", b, c, "9-x", b, a]))", token: alice)
            #expect(open.status == .ok)
            #expect(revs(open) == [.string(c), .string(b), "9-x", .string(a)], "\(open.json)")
            // latest=true: the root leads to both leaves, which are answered once however often they are reached.
            let latest = try await client.call(.get, "/fprint/m1?latest=true&open_revs=\(Self.list([a, b, a, c, a]))", token: alice)
            #expect(revs(latest) == [.string(b), .string(c)] || revs(latest) == [.string(c), .string(b)], "\(latest.json)")
            #expect(latest.json.arrayValue?.count == 2)
            let all = try await client.call(.get, "/fprint/m1?open_revs=all", token: alice)
            #expect(revs(all) == [.string(c), .string(b)], "\(all.json)")

            // multipart/mixed: one part per revision.
            let (type, text) = try await client.execute(
                uri: "/fprint/m1?open_revs=\(Self.list([b, b, b, "9-x", "9-x"]))", method: .get,
                headers: [.authorization: "Bearer \(alice)", .accept: "multipart/mixed"]) { response in
                    (response.headers[.contentType] ?? "", String(buffer: response.body))
                }
            let boundary = try #require(type.split(separator: "\"").dropFirst().first.map(String.init), "\(type)")
            let parts = text.components(separatedBy: "--\(boundary)")
            #expect(parts.count == 4 && parts[3] == "--", "\(text)")
            #expect(parts[1].contains(#""_rev":"\#(b)""#) && parts[2].contains(#"{"missing":"9-x"}"#))

            // _bulk_get: an entry asked again, and a revision reached again, is answered once.
            let bulk = try await client.call(.post, "/fprint/_bulk_get", token: alice, body: [
                "docs": [["id": "m1", "rev": .string(b)], ["id": "m1", "rev": .string(b)], ["id": "m1"], ["id": "m1"],
                         ["id": "nope"], ["id": "nope"], ["id": "m1", "rev": .string(c)]],
            ])
            let results = try #require(bulk.json["results"]?.arrayValue)
            #expect(results.map { $0["id"] } == ["m1", "m1", "nope"], "\(bulk.json)")
            #expect(results.map { $0["docs"]?.arrayValue?.first?["ok"]?["_rev"] ?? $0["docs"]?.arrayValue?.first?["error"]?["error"] }
                    == [.string(b), .string(c), "not_found"], "\(bulk.json)")
            let expanded = try await client.call(.post, "/fprint/_bulk_get?latest=true", token: alice, body: [
                "docs": [["id": "m1", "rev": .string(a)], ["id": "m1", "rev": .string(b)], ["id": "m1", "rev": .string(a)]],
            ])
            let entries = try #require(expanded.json["results"]?.arrayValue)
            #expect(entries.count == 1 && entries[0]["docs"]?.arrayValue?.count == 2, "\(expanded.json)")
        }
    }
}
