import FPCore
import FPGateway
import FPStore
import Foundation
import Hummingbird
import HTTPTypes
import FPHTTPTestSupport
import Testing

/// A gateway over a fresh in-memory store, with tokens for alice, bob and an admin.
struct GatewayFixture {
    let store: SQLiteDocumentStore
    let authority = TokenAuthority(secret: Data("test-secret-test-secret-test-secret!".utf8))
    let config: GatewayConfig

    /// An in-memory store, or a WAL database file at `path`.
    init(bodyLimit: Int = 1 << 20, path: String? = nil, publicURL: String? = nil) throws {
        try self.init(store: path.map { try SQLiteDocumentStore(path: $0) } ?? SQLiteDocumentStore.inMemory(),
                      bodyLimit: bodyLimit, publicURL: publicURL)
    }

    /// Serves a store the test opened itself.
    init(store: SQLiteDocumentStore, bodyLimit: Int = 1 << 20, publicURL: String? = nil) throws {
        self.store = store
        let users = try BasicUsers(fileText: "carol:s3cret\nroot:toor:admin\n")
        config = GatewayConfig(tokens: authority, users: users, bodyLimit: bodyLimit,
                               appConfig: ["gatewayURL": "http://old/x", "maps": []], scenarios: ["scenarios": []],
                               publicURL: publicURL, idleTimeout: Self.idleTimeout)
    }

    /// Ten minutes, not the gateway's 10 s: a test's client may connect and
    /// then wait that long for a thread of the cooperative pool before it
    /// sends its request when the whole suite runs on two busy cores, and the
    /// server then closed the connection as idle ("I/O on closed channel").
    /// The idle timeout itself is tested on the real binary.
    static let idleTimeout: Duration = .seconds(600)

    var app: some ApplicationProtocol { get throws { try buildGatewayApplication(store: store, config: config) } }
    func token(_ user: String, admin: Bool = false, ttl: Int64 = 3600) -> String {
        authority.issue(user: user, admin: admin, ttlSeconds: ttl)
    }
}

/// One answer: status and parsed JSON body.
struct Answer {
    var status: HTTPResponse.Status
    var json: JSONValue
    var headers: HTTPFields
}

extension TestClientProtocol {
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String?, body: JSONValue? = nil,
              raw: String? = nil, headers extra: HTTPFields = [:]) async throws -> Answer {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        // As every client sends a JSON body (CouchDB refuses others with 415).
        if body != nil || raw != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        var buffer: ByteBuffer?
        if let body { buffer = ByteBuffer(bytes: CanonicalJSON.data(body)) }
        if let raw { buffer = ByteBuffer(string: raw) }
        return try await execute(uri: uri, method: method, headers: headers, body: buffer) { response in
            let data = Data(response.body.readableBytesView)
            let json = data.isEmpty ? JSONValue.null : (try? CanonicalJSON.parse(data)) ?? .string(String(decoding: data, as: UTF8.self))
            return Answer(status: response.status, json: json, headers: response.headers)
        }
    }
}

func doc(_ id: String, owner: String, note: String = "", extra: JSONObject = [:]) -> JSONValue {
    var object: JSONObject = ["_id": .string(id), "couchbase_sync_gateway_id": .string(owner), "note": .string(note),
                                       "type": "scan", "level": "J1NP"]
    for (k, v) in extra { object[k] = v }
    return .object(object)
}

let hashA = String(repeating: "a", count: 32)
let hashB = String(repeating: "b", count: 32)
let hashC = String(repeating: "c", count: 32)

@Suite struct GatewayProtocolTests {
    @Test func rootDatabaseInfoAndInstanceStartTime() async throws {
        let f = try GatewayFixture()
        let token = f.token("alice")
        try await f.app.test(.router) { client in
            let root = try await client.call(.get, "/", token: token)
            #expect(root.status == .ok)
            #expect(root.json["couchdb"] == "Welcome")
            let info = try await client.call(.get, "/fprint", token: token)
            #expect(info.json["db_name"] == "fprint")
            #expect(info.json["instance_start_time"] == "0")
            #expect(info.json["update_seq"] == "0")
            let commit = try await client.call(.post, "/fprint/_ensure_full_commit", token: token, body: [:])
            #expect(commit.status == .created)
            #expect(commit.json["instance_start_time"] == info.json["instance_start_time"])
            let head = try await client.call(.head, "/fprint", token: token)
            #expect(head.status == .ok)
            #expect(head.json == .null)
            #expect(try await client.call(.put, "/fprint", token: token).status == .preconditionFailed)
            #expect(try await client.call(.get, "/other", token: token).status == .notFound)
        }
    }

    @Test func everyRequestNeedsAValidToken() async throws {
        let f = try GatewayFixture()
        let forged = TokenAuthority(secret: Data("another-secret-another-secret-xx".utf8)).issue(user: "alice", admin: true, ttlSeconds: 3600)
        let expired = f.authority.issue(user: "alice", admin: false, ttlSeconds: 10, now: Date(timeIntervalSinceNow: -3600))
        try await f.app.test(.router) { client in
            for (token, reason) in [(nil as String?, "required"), (forged, "signature"), (expired, "expired"), ("not.a.jwt", "well-formed")] {
                let answer = try await client.call(.get, "/fprint/_changes", token: token)
                #expect(answer.status == .unauthorized)
                #expect(answer.json["error"] == "unauthorized")
                #expect(answer.json["reason"]?.stringValue?.contains(reason) == true, "\(answer.json)")
                if let token { #expect(!CanonicalJSON.string(answer.json).contains(token)) }
            }
            // Basic users work too; a wrong password does not.
            let good = "Basic " + Data("carol:s3cret".utf8).base64EncodedString()
            let bad = "Basic " + Data("carol:nope".utf8).base64EncodedString()
            #expect(try await client.call(.get, "/fprint", token: nil, headers: [.authorization: good]).status == .ok)
            #expect(try await client.call(.get, "/fprint", token: nil, headers: [.authorization: bad]).status == .unauthorized)
        }
    }

    @Test func sessionExchangesBasicCredentialsForAToken() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let basic = "Basic " + Data("carol:s3cret".utf8).base64EncodedString()
            let session = try await client.call(.post, "/_session", token: nil, headers: [.authorization: basic])
            #expect(session.status == .ok)
            let token = try #require(session.json["token"]?.stringValue)
            #expect(try f.authority.verify(token).subject == "carol")
            let me = try await client.call(.get, "/_session", token: token)
            #expect(me.json["userCtx"]?["name"] == "carol")
            let wrong = try await client.call(.post, "/_session", token: nil, body: ["name": "carol", "password": "x"])
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test func documentLifecycleWithNewEdits() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            let put = try await client.call(.put, "/fprint/m1", token: alice, body: doc("m1", owner: "alice"))
            #expect(put.status == .created)
            let rev1 = try #require(put.json["rev"]?.stringValue)
            #expect(rev1.hasPrefix("1-"))
            // A stale update is a 409
            let stale = try await client.call(.put, "/fprint/m1", token: alice, body: doc("m1", owner: "alice", note: "x"))
            #expect(stale.status == .conflict)
            var update = doc("m1", owner: "alice", note: "2")
            update["_rev"] = .string(rev1)
            let put2 = try await client.call(.put, "/fprint/m1", token: alice, body: update)
            let rev2 = try #require(put2.json["rev"]?.stringValue)
            let got = try await client.call(.get, "/fprint/m1?revs=true", token: alice)
            #expect(got.json["_rev"] == .string(rev2))
            #expect(got.json["_revisions"]?["start"] == 2)
            #expect(got.json["_revisions"]?["ids"]?.arrayValue?.count == 2)
            let del = try await client.call(.delete, "/fprint/m1?rev=\(rev2)", token: alice)
            #expect(del.status == .ok)
            let gone = try await client.call(.get, "/fprint/m1", token: alice)
            #expect(gone.status == .notFound)
            #expect(gone.json["reason"] == "deleted")
        }
    }

    @Test func usersWriteOnlyTheirOwnDocuments() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice"), bob = f.token("bob"), admin = f.token("ops", admin: true)
        try await f.app.test(.router) { client in
            #expect(try await client.call(.put, "/fprint/a1", token: alice, body: doc("a1", owner: "alice")).status == .created)
            // Bob may not sign as alice, nor change alice's document, nor replicate over it
            let forged = try await client.call(.put, "/fprint/b1", token: bob, body: doc("b1", owner: "alice"))
            #expect(forged.status == .forbidden)
            #expect(forged.json["error"] == "forbidden")
            let bulk = try await client.call(.post, "/fprint/_bulk_docs", token: bob, body: [
                "new_edits": false,
                "docs": [doc("a1", owner: "bob", extra: ["_rev": .string("2-\(hashB)"), "_revisions": ["start": 2, "ids": [.string(hashB), .string(hashA)]]])],
            ])
            #expect(bulk.status == .created)
            #expect(bulk.json.arrayValue?.first?["error"] == "forbidden")
            #expect(try f.store.revsDiff(["a1": [Revision("2-\(hashB)")!]]).count == 1)
            // But bob reads it
            #expect(try await client.call(.get, "/fprint/a1", token: bob).status == .ok)
            // Admins write anything
            #expect(try await client.call(.put, "/fprint/x1", token: admin, body: doc("x1", owner: "someone")).status == .created)
        }
    }

    @Test func replicationEndpoints() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            // Two conflicting branches pushed with new_edits:false: CouchDB answers []
            let push = try await client.call(.post, "/fprint/_bulk_docs", token: alice, body: [
                "new_edits": false,
                "docs": [
                    doc("m1", owner: "alice", note: "B", extra: ["_rev": .string("2-\(hashB)"), "_revisions": ["start": 2, "ids": [.string(hashB), .string(hashA)]]]),
                    doc("m1", owner: "alice", note: "C", extra: ["_rev": .string("2-\(hashC)"), "_revisions": ["start": 2, "ids": [.string(hashC), .string(hashA)]]]),
                ],
            ])
            #expect(push.status == .created)
            #expect(push.json == [])
            let diff = try await client.call(.post, "/fprint/_revs_diff", token: alice, body: [
                "m1": [.string("1-\(hashA)"), .string("2-\(hashB)"), "3-\(hashC)"], "m2": ["1-\(hashA)"],
            ])
            #expect(diff.json == ["m1": ["missing": ["3-\(hashC)"]], "m2": ["missing": ["1-\(hashA)"]]])
            let changes = try await client.call(.get, "/fprint/_changes?style=all_docs&since=0", token: alice)
            let row = try #require(changes.json["results"]?.arrayValue?.first)
            #expect(row["id"] == "m1")
            #expect(row["changes"] == [["rev": .string("2-\(hashC)")], ["rev": .string("2-\(hashB)")]])
            #expect(row["seq"]?.stringValue != nil)
            let last = try #require(changes.json["last_seq"]?.stringValue)
            let empty = try await client.call(.get, "/fprint/_changes?since=\(last)&limit=10", token: alice)
            #expect(empty.json["results"] == [])
            // _bulk_get with a missing revision among found ones
            let bulk = try await client.call(.post, "/fprint/_bulk_get?revs=true&latest=true", token: alice, body: [
                "docs": [["id": "m1", "rev": .string("2-\(hashB)")], ["id": "nope", "rev": "1-x"]],
            ])
            let results = try #require(bulk.json["results"]?.arrayValue)
            #expect(results[0]["docs"]?.arrayValue?.first?["ok"]?["note"] == "B")
            #expect(results[0]["docs"]?.arrayValue?.first?["ok"]?["_revisions"]?["ids"] == [.string(hashB), .string(hashA)])
            #expect(results[1]["docs"]?.arrayValue?.first?["error"]?["error"] == "not_found")
            // open_revs=all returns both leaves; conflicts=true lists the loser
            let open = try await client.call(.get, "/fprint/m1?open_revs=all&revs=true", token: alice)
            #expect(open.json.arrayValue?.count == 2)
            let withConflicts = try await client.call(.get, "/fprint/m1?conflicts=true", token: alice)
            #expect(withConflicts.json["_conflicts"] == [.string("2-\(hashB)")])
            let openList = try await client.call(.get, "/fprint/m1?open_revs=%5B%221-\(hashA)%22%5D&latest=true", token: alice)
            #expect(openList.json.arrayValue?.count == 2)  // latest: both leaves descending from 1-a
        }
    }

    @Test func longpollWaitsForAChange() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            let started = ContinuousClock.now
            let none = try await client.call(.get, "/fprint/_changes?feed=longpoll&since=0&timeout=300", token: alice)
            #expect(none.json["results"] == [])
            #expect(ContinuousClock.now - started >= .milliseconds(250))
            let store = f.store
            Task {
                try await Task.sleep(for: .milliseconds(100))
                try store.edit(id: "late", body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)
            }
            let some = try await client.call(.get, "/fprint/_changes?feed=longpoll&since=0&timeout=5000", token: alice)
            #expect(some.json["results"]?.arrayValue?.first?["id"] == "late")
        }
    }

    @Test func localDocumentsAllDocsAndConfig() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            // Checkpoint ids arrive URL-encoded and may hold '.', '_', '=' and '/'
            let put = try await client.call(.put, "/fprint/_local/xF0bX2.53MUHWQdDpYnOrw%3D%3D", token: alice, body: ["session_id": "s1"])
            #expect(put.status == .created)
            // Kept in alice's own namespace.
            #expect(try f.store.localDocument(id: "alice\u{1F}xF0bX2.53MUHWQdDpYnOrw==")?["session_id"] == "s1")
            let get = try await client.call(.get, "/fprint/_local/xF0bX2.53MUHWQdDpYnOrw%3D%3D", token: alice)
            #expect(get.json["_id"] == "_local/xF0bX2.53MUHWQdDpYnOrw==")
            #expect(try await client.call(.get, "/fprint/_local/missing", token: alice).status == .notFound)

            for id in ["a", "b", "c"] {
                _ = try await client.call(.put, "/fprint/\(id)", token: alice, body: doc(id, owner: "alice"))
            }
            let range = try await client.call(.get, "/fprint/_all_docs?startkey=%22b%22&endkey=%22c%22&include_docs=true", token: alice)
            #expect(range.json["rows"]?.arrayValue?.map { $0["id"] } == ["b", "c"])
            #expect(range.json["rows"]?.arrayValue?.first?["doc"]?["_id"] == "b")
            let keys = try await client.call(.post, "/fprint/_all_docs", token: alice, body: ["keys": ["c", "zz"]])
            #expect(keys.json["rows"]?.arrayValue?.last?["error"] == "not_found")
            let limited = try await client.call(.get, "/fprint/_all_docs?limit=1", token: alice)
            #expect(limited.json["rows"]?.arrayValue?.count == 1)

            let app = try await client.call(.get, "/config/app-config.json", token: alice,
                                            headers: [HTTPField.Name("Host")!: "attacker.example"])
            #expect(app.status == .ok)
            // No public URL configured: loopback, never the client's Host.
            #expect(app.json["gatewayURL"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
            #expect(app.json["gatewayURL"]?.stringValue?.hasSuffix("/fprint") == true)
            #expect(!CanonicalJSON.string(app.json).contains("attacker"))
            #expect(try await client.call(.get, "/config/scenarios.json", token: alice).json["scenarios"] == [])
        }
    }

    @Test func badBodiesGetCouchErrors() async throws {
        let f = try GatewayFixture(bodyLimit: 2048)
        let alice = f.token("alice")
        try await f.app.test(.router) { client in
            let malformed = try await client.call(.post, "/fprint/_bulk_docs", token: alice, raw: "{\"docs\": [")
            #expect(malformed.status == .badRequest)
            #expect(malformed.json["error"] == "bad_request")
            #expect(malformed.json["reason"] != nil)
            let big = try await client.call(.post, "/fprint/_bulk_docs", token: alice, raw: String(repeating: " ", count: 5000) + "{}")
            #expect(big.status == .contentTooLarge)
            #expect(big.json["error"] == "too_large")
            let badRev = try await client.call(.post, "/fprint/_revs_diff", token: alice, body: ["m": ["nonsense"]])
            #expect(badRev.status == .badRequest)
            let badSince = try await client.call(.get, "/fprint/_changes?since=abc", token: alice)
            #expect(badSince.status == .badRequest)
            // Nothing was stored by any of them
            #expect(try f.store.lastSequence() == 0)
        }
    }

    @Test func liveServerOnAFreePort() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.live) { client in
            let port = try #require(client.port)
            let info = try await onANewConnection(port: port) { try await $0.answer(.get, "/fprint", token: alice) }
            #expect(info.status == .ok)
            #expect(info.json["db_name"] == "fprint")
        }
    }
}

@Suite struct TokenTests {
    let authority = TokenAuthority(secret: Data("0123456789abcdef0123456789abcdef".utf8))

    @Test func issuedTokensVerify() throws {
        let token = authority.issue(user: "alice", admin: true, ttlSeconds: 3600)
        let claims = try authority.verify(token)
        #expect(claims.subject == "alice" && claims.isAdmin)
        #expect(TokenClaims.unverified(token)?.expiresAt == claims.expiresAt)
    }

    @Test func tamperedTokensFail() throws {
        let token = authority.issue(user: "alice", admin: false, ttlSeconds: 3600)
        var parts = token.split(separator: ".").map(String.init)
        // Swap in a payload claiming admin, keep the signature
        parts[1] = authority.issue(user: "alice", admin: true, ttlSeconds: 3600).split(separator: ".")[1].description
        #expect(throws: TokenError.badSignature) { try authority.verify(parts.joined(separator: ".")) }
        #expect(throws: TokenError.malformed) { try authority.verify("a.b") }
        // alg:none is refused whatever the signature
        let none = TokenAuthorityTestSupport.base64URL(Data("{\"alg\":\"none\"}".utf8)) + "." + parts[1] + "."
        #expect(throws: TokenError.self) { try authority.verify(none) }
        #expect(throws: TokenError.expired) {
            try authority.verify(authority.issue(user: "a", admin: false, ttlSeconds: 1, now: Date(timeIntervalSinceNow: -10)))
        }
    }
}

enum TokenAuthorityTestSupport {
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
