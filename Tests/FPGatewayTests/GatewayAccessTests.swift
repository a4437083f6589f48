import FPCore
@testable import FPGateway
import FPStore
import Foundation
import Hummingbird
import HTTPTypes
import FPHTTPTestSupport
import Testing

/// Who may do what: strict token decoding, viewers, per-user `_local`
/// documents, CouchDB's form and cookie sessions, the served public URL.
@Suite struct GatewayAccessTests {
    @Test func malleatedSignaturesAreRefused() throws {
        let f = try GatewayFixture()
        let token = f.token("alice")
        #expect(try f.authority.verify(token).subject == "alice")
        // An HMAC-SHA256 is 32 bytes: 43 base64url characters, the last of
        // which carries 2 unused bits. Flipping one keeps a lenient decode's bytes.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = try #require(token.last)
        let index = try #require(alphabet.firstIndex(of: last))
        for flip in [1, 2, 3] {
            let malleated = String(token.dropLast()) + String(alphabet[index ^ flip])
            #expect(throws: TokenError.malformed) { try f.authority.verify(malleated) }
        }
        #expect(throws: TokenError.malformed) { try f.authority.verify(token + "=") }
        #expect(throws: TokenError.malformed) { try f.authority.verify(token + " ") }
        #expect(throws: TokenError.malformed) { try f.authority.verify(token.replacingOccurrences(of: ".", with: ". ")) }
    }

    @Test func strictBase64URLRoundTrips() throws {
        for length in 0..<70 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + length) })
            let text = Base64URL.encode(bytes)
            #expect(Base64URL.decode(Substring(text)) == bytes)
        }
        #expect(Base64URL.decode("A") == nil)  // length 1 mod 4 encodes nothing
        #expect(Base64URL.decode("AB") == nil)  // 'B' leaves stray bits
        #expect(Base64URL.decode("AA") == Data([0]))
        #expect(Base64URL.decode("AA==") == nil)
        #expect(Base64URL.decode("+/8") == nil)
    }

    @Test func localDocumentsBelongToTheirWriter() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice"), bob = f.token("bob"), root = f.token("root", admin: true)
        try await f.app.test(.router) { client in
            let put = try await client.call(.put, "/fprint/_local/bob-checkpoint", token: bob, body: ["seq": "7"])
            #expect(put.status == .created)
            // Alice sees nothing there, and her writes and deletes do not reach Bob's.
            #expect(try await client.call(.get, "/fprint/_local/bob-checkpoint", token: alice).status == .notFound)
            #expect(try await client.call(.delete, "/fprint/_local/bob-checkpoint", token: alice).status == .notFound)
            let hers = try await client.call(.put, "/fprint/_local/bob-checkpoint", token: alice, body: ["seq": "1"])
            #expect(hers.status == .created)
            #expect(hers.json["rev"] == "0-1")
            let bobs = try await client.call(.get, "/fprint/_local/bob-checkpoint", token: bob)
            #expect(bobs.json["seq"] == "7")
            #expect(try await client.call(.get, "/fprint/_local/bob-checkpoint?owner=bob", token: alice).status == .forbidden)
            // An admin reaches any user's documents by name.
            let seen = try await client.call(.get, "/fprint/_local/bob-checkpoint?owner=bob", token: root)
            #expect(seen.json["seq"] == "7")
        }
    }

    @Test func viewersReadButNeverWrite() async throws {
        let f = try GatewayFixture()
        let viewer = f.authority.issue(user: "vera", role: .viewer, ttlSeconds: 3600)
        #expect(try f.authority.verify(viewer).role == .viewer)
        try await f.app.test(.router) { client in
            _ = try await client.call(.put, "/fprint/d1", token: f.token("alice"), body: doc("d1", owner: "alice"))
            #expect(try await client.call(.get, "/fprint/d1", token: viewer).status == .ok)
            #expect(try await client.call(.get, "/fprint/_changes", token: viewer).json["results"]?.arrayValue?.count == 1)
            #expect(try await client.call(.post, "/fprint/_bulk_get", token: viewer, body: ["docs": [["id": "d1"]]]).status == .ok)
            #expect(try await client.call(.post, "/fprint/_revs_diff", token: viewer, body: ["d1": []]).status == .ok)
            #expect(try await client.call(.post, "/fprint/_all_docs", token: viewer, body: ["keys": ["d1"]]).status == .ok)
            // Their own checkpoints are allowed (a pull writes one)
            #expect(try await client.call(.put, "/fprint/_local/cp", token: viewer, body: ["seq": "1"]).status == .created)
            // Writes are refused on the headers: this malformed body is never read (it would be a 400).
            let bulk = try await client.call(.post, "/fprint/_bulk_docs", token: viewer, raw: "{not json")
            #expect(bulk.status == .forbidden)
            let put = try await client.call(.put, "/fprint/v1", token: viewer, body: doc("v1", owner: "vera"))
            #expect(put.status == .forbidden)
            #expect(try await client.call(.delete, "/fprint/d1?rev=1-x", token: viewer).status == .forbidden)
            #expect(try f.store.lastSequence() == 1)
        }
    }

    @Test func viewersFromTheUsersFile() throws {
        let users = try BasicUsers(fileText: "vera:pw:viewer\r\nbob:pw\n# comment\nroot:pw:admin\n")
        #expect(users.authenticate(name: "vera", password: "pw")?.role == .viewer)
        #expect(users.authenticate(name: "bob", password: "pw")?.role == .user)
        #expect(users.authenticate(name: "root", password: "pw")?.role == .admin)
        #expect(users.authenticate(name: "nobody", password: "pw") == nil)
        #expect(throws: GatewaySetupError.self) { try BasicUsers(fileText: "x:y:superuser\n") }
    }

    /// CouchDB's replicator logs in with a form body (recorded request in
    /// couchdb-3.5-answers.txt), then sends the AuthSession cookie.
    @Test func formSessionSetsACookieThatAuthenticates() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let session = try await client.call(.post, "/_session", token: nil, raw: "name=carol&password=s3cret", headers: form)
            #expect(session.status == .ok)
            #expect(session.json["ok"] == true)
            #expect(session.json["name"] == "carol")
            let cookie = try #require(session.headers[.setCookie])
            #expect(cookie.hasPrefix("AuthSession="))
            #expect(cookie.contains("Path=/") && cookie.contains("HttpOnly"))
            let value = String(cookie.dropFirst("AuthSession=".count).prefix { $0 != ";" })
            #expect(!value.isEmpty)
            let cookieHeader: HTTPFields = [.cookie: "other=1; AuthSession=\(value)"]
            #expect(try await client.call(.get, "/fprint", token: nil, headers: cookieHeader).status == .ok)
            let me = try await client.call(.get, "/_session", token: nil, headers: cookieHeader)
            #expect(me.json["userCtx"]?["name"] == "carol")
            #expect(me.json["info"]?["authenticated"] == "cookie")
            // The same answer as CouchDB 3.5 for a wrong password, cookie cleared.
            let wrong = try await client.call(.post, "/_session", token: nil, raw: "name=carol&password=wrong", headers: form)
            #expect(wrong.status == .unauthorized)
            #expect(CanonicalJSON.string(wrong.json) == #"{"error":"unauthorized","reason":"Name or password is incorrect."}"#)
            #expect(wrong.headers[.setCookie]?.hasPrefix("AuthSession=;") == true)
            // A JSON body works too, and a forged cookie does not.
            let json = try await client.call(.post, "/_session", token: nil, body: ["name": "carol", "password": "s3cret"])
            #expect(json.status == .ok)
            let forged: HTTPFields = [.cookie: "AuthSession=\(value.dropLast())\(value.last == "A" ? "Q" : "A")"]
            #expect(try await client.call(.get, "/fprint", token: nil, headers: forged).status == .unauthorized)
        }
    }

    /// CouchDB's replicator pushes design documents; a 403 is skipped, a 404 ended the job.
    @Test func designDocumentsAreRefusedAsCouchDBRefusesAMember() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let put = try await client.call(.put, "/fprint/_design/v?new_edits=false", token: f.token("root", admin: true),
                                            raw: #"{"_rev":"1-cc","views":{},"_revisions":{"start":1,"ids":["cc"]}}"#)
            #expect(put.status == .forbidden)
            #expect(put.json["error"] == "forbidden")
            #expect(try f.store.lastSequence() == 0)
        }
    }

    @Test func servedConfigPointsAtThePublicURL() async throws {
        let store = try SQLiteDocumentStore.inMemory()
        let authority = TokenAuthority(secret: Data("test-secret-test-secret-test-secret!".utf8))
        let config = GatewayConfig(tokens: authority, appConfig: ["gatewayURL": "http://old/x", "maps": []],
                                   publicURL: "https://fprint.example.org/")
        try await buildGatewayApplication(store: store, config: config).test(.router) { client in
            let app = try await client.call(.get, "/config/app-config.json", token: authority.issue(user: "a", ttlSeconds: 3600),
                                            headers: [HTTPField.Name("Host")!: "attacker.example"])
            #expect(app.status == .ok, "\(app.json)")
            #expect(app.json["gatewayURL"] == "https://fprint.example.org/fprint")
            #expect(app.json["authURL"] == "https://fprint.example.org/_session")
            #expect(app.json["scenariosURL"] == "https://fprint.example.org/config/scenarios.json")
        }
    }
}
