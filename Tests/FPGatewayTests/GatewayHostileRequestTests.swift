import FPCore
@testable import FPGateway
import FPStore
import FPTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import NIOCore
import Testing

/// Requests a hostile page or client sends: cross-site writes with the
/// session cookie, bodies in types a page may post freely, paths that do not
/// decode, requests asking about more ids than any replicator does, and two
/// users racing for one new id.
@Suite struct GatewayHostileRequestTests {
    static func cookie(_ client: some TestClientProtocol, _ origin: String? = nil) async throws -> String {
        var headers: HTTPFields = [:]
        if let origin { headers[.origin] = origin }
        let answer = try await client.call(.post, "/_session", token: nil, body: ["name": "carol", "password": "s3cret"], headers: headers)
        return String(try #require(answer.headers[.setCookie]?.split(separator: ";").first))
    }

    @Test func theSessionCookieIsStrictAndSecureOverHTTPS() async throws {
        var f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let answer = try await client.call(.post, "/_session", token: nil, body: ["name": "carol", "password": "s3cret"])
            let set = try #require(answer.headers[.setCookie])
            #expect(set.contains("; HttpOnly; SameSite=Strict") && !set.contains("Secure"), "\(set)")
        }
        f = try GatewayFixture(publicURL: "https://fprint.example.org")
        try await f.app.test(.router) { client in
            let answer = try await client.call(.post, "/_session", token: nil, body: ["name": "carol", "password": "s3cret"])
            #expect(answer.headers[.setCookie]?.hasSuffix("; SameSite=Strict; Secure") == true)
        }
    }

    /// Another site's page may not log a browser in (it replaced an admin's session with a viewer's).
    @Test func aLoginPostedFromAnotherSiteIsRefused() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let form = ByteBuffer(string: "name=carol&password=s3cret")
            let foreign = try await client.execute(uri: "/_session", method: .post, headers: [
                .contentType: "application/x-www-form-urlencoded", .origin: "http://evil.example", HTTPField.Name("Host")!: "127.0.0.1:5984",
            ], body: form) { $0 }
            #expect(foreign.status == .forbidden)
            #expect(foreign.headers[.setCookie] == nil)
            // CouchDB's replicator logs in with the same form and no browser headers: welcome.
            let replicator = try await client.execute(uri: "/_session", method: .post, headers: [
                .contentType: "application/x-www-form-urlencoded", HTTPField.Name("Host")!: "127.0.0.1:5984",
            ], body: form) { $0 }
            #expect(replicator.status == .ok)
        }
    }

    @Test func cookieWritesFromAnotherSiteAreRefused() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let cookie = try await Self.cookie(client)
            let body = #"{"docs":[{"_id":"csrf","couchbase_sync_gateway_id":"carol"}]}"#
            func post(_ extra: HTTPFields) async throws -> HTTPResponse.Status {
                var headers: HTTPFields = [.cookie: cookie, .contentType: "application/json", HTTPField.Name("Host")!: "127.0.0.1:5984"]
                for field in extra { headers[field.name] = field.value }
                return try await client.execute(uri: "/fprint/_bulk_docs", method: .post, headers: headers,
                                                body: ByteBuffer(string: body)) { $0.status }
            }
            #expect(try await post([.origin: "http://evil.example"]) == .forbidden)
            #expect(try await post([.origin: "null"]) == .forbidden)
            #expect(try await post([HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]) == .forbidden)
            #expect(try await post([.referer: "http://evil.example/page"]) == .forbidden)
            #expect(try await f.store.count() == 0)
            // The gateway's own page, and a client that is no browser (CouchDB's replicator): stored.
            // (The test router names the gateway `localhost`, as a browser's Host would.)
            let own = try await post([.origin: "http://localhost"])
            #expect(own == .created, "\(own)")
            #expect(try await post([:]) == .created)
            // A bearer token is not sent by browsers on their own: no origin rule for it.
            let bearer = try await client.call(.put, "/fprint/b", token: f.token("carol"), body: ["couchbase_sync_gateway_id": "carol"],
                                               headers: [.origin: "http://evil.example"])
            #expect(bearer.status == .created)
        }
    }

    /// A page may post `text/plain` or a form anywhere without asking: JSON
    /// endpoints refuse them as CouchDB does, with 415, before the handler.
    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil])
    func jsonEndpointsRefuseOtherBodies(contentType: String?) async throws {
        let f = try GatewayFixture()
        let admin = f.token("root", admin: true)
        try await f.app.test(.router) { client in
            for (uri, body) in [("/fprint/_bulk_docs", #"{"docs":[{"_id":"t"}]}"#), ("/fprint/_revs_diff", #"{"t":["1-a"]}"#),
                                ("/fprint/_all_docs", #"{"keys":["t"]}"#), ("/fprint/_bulk_get", #"{"docs":[{"id":"t"}]}"#),
                                ("/fprint", #"{"_id":"t"}"#)] {
                var headers: HTTPFields = [.authorization: "Bearer \(admin)"]
                if let contentType { headers[.contentType] = contentType }
                let answer = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { $0 }
                #expect(answer.status == .unsupportedMediaType, "\(uri) with \(contentType ?? "no type")")
                #expect(String(buffer: answer.body).contains("Content-Type must be application/json"))
            }
            #expect(try f.store.count() == 0)
        }
    }

    /// Refused rather than changed: an id that does not percent-decode is not stored as typed.
    @Test(arguments: ["c6%ED%A0%80", "c6%FF%FE", "c6%", "c6%ZZ", "c6%C3"])
    func pathsThatDoNotDecodeAreRefused(id: String) async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let answer = try await client.call(.put, "/fprint/\(id)", token: f.token("root", admin: true), body: ["x": 1])
            #expect(answer.status == .badRequest, "\(id): \(answer.status)")
            #expect(answer.json["reason"]?.stringValue?.contains("percent-encoded") == true)
        }
        #expect(try f.store.count() == 0)
    }

    @Test func noRequestAsksAboutMoreThanTenThousandIDs() async throws {
        let f = try GatewayFixture()
        let viewer = f.authority.issue(user: "vera", role: .viewer, ttlSeconds: 3600)
        let ids = (0...CouchHandler.maxIDsPerRequest).map { "d\($0)" }
        try await f.app.test(.router) { client in
            let keys = try await client.call(.post, "/fprint/_all_docs", token: viewer, body: ["keys": .array(ids.map(JSONValue.string))])
            let get = try await client.call(.post, "/fprint/_bulk_get", token: viewer, body: ["docs": .array(ids.map { ["id": .string($0)] })])
            let diff = try await client.call(.post, "/fprint/_revs_diff", token: viewer,
                                             body: .object(JSONObject(members: ids.map { ($0, JSONValue.array(["1-a"])) })))
            for answer in [keys, get, diff] {
                #expect(answer.status == .badRequest)
                #expect(answer.json["reason"]?.stringValue?.contains("at most 10000 per request") == true, "\(answer.json)")
            }
            // Exactly the limit is answered.
            let most = try await client.call(.post, "/fprint/_all_docs", token: viewer,
                                             body: ["keys": .array(ids.dropLast().map(JSONValue.string))])
            #expect(most.status == .ok)
            // A query body over 4 MB is not read at all.
            let huge = String(repeating: "x", count: CouchHandler.queryBodyLimit)
            let big = try await client.call(.post, "/fprint/_all_docs", token: viewer, raw: #"{"keys":[""# + huge + #""]}"#)
            #expect(big.status == .contentTooLarge)
        }
    }

    /// Viewers may keep replication checkpoints (a read-only replicator
    /// writes them), in their own `_local` space, small.
    @Test func viewersKeepSmallCheckpointsOfTheirOwn() async throws {
        let f = try GatewayFixture()
        let viewer = f.authority.issue(user: "vera", role: .viewer, ttlSeconds: 3600)
        try await f.app.test(.router) { client throws in
            #expect(try await client.call(.put, "/fprint/_local/vera-cp", token: viewer, body: ["seq": "7"]).status == .created)
            let big = JSONValue.string(String(repeating: "x", count: CouchHandler.localBodyLimit))
            #expect(try await client.call(.put, "/fprint/_local/vera-cp", token: viewer, body: ["pad": big]).status == .contentTooLarge)
            #expect(try await client.call(.put, "/fprint/doc", token: viewer, body: ["x": 1]).status == .forbidden)
        }
    }

    /// Alice and Bob push the same new ids at once (`new_edits:false`, ten a
    /// batch): each id ends owned by one of them, never by both.
    @Test func twoUsersRacingForNewIDsNeverBothOwnOne() async throws {
        let f = try GatewayFixture()
        let tokens = ["alice": f.token("alice"), "bob": f.token("bob")]
        let ids = (0..<300).map { "race-\($0)" }
        try await f.app.test(.live) { client in
            let port = try #require(client.port)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (user, token) in tokens {
                    for batch in stride(from: 0, to: ids.count, by: 10) {
                        let docs: [JSONValue] = ids[batch..<batch + 10].map { id in
                            let rev = user == "alice" ? "1-aaaa" : "1-bbbb"
                            return ["_id": .string(id), "_rev": .string(rev), "couchbase_sync_gateway_id": .string(user)]
                        }
                        group.addTask {
                            _ = try await onANewConnection(port: port) { other in
                                try await other.execute(uri: "/fprint/_bulk_docs", method: .post,
                                                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                                                        body: ByteBuffer(bytes: CanonicalJSON.data(["docs": .array(docs), "new_edits": false])))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var owners: [String: Set<String>] = [:]
        for id in ids {
            for leaf in try f.store.leaves(id: id) {
                let text = try #require(try f.store.revisionText(id: id, rev: leaf.rev))
                let body = try CanonicalJSON.parse(Data(text.canonicalBody.utf8))
                owners[id, default: []].insert(body["couchbase_sync_gateway_id"]?.stringValue ?? "?")
            }
        }
        #expect(owners.count == ids.count)
        #expect(owners.values.allSatisfy { $0.count == 1 }, "ids owned by both: \(owners.filter { $0.value.count > 1 }.keys.sorted().prefix(5))")
    }
}
