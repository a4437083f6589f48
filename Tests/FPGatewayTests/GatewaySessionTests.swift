import FPCore
@testable import FPGateway
import FPStore
import FPTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import FPHTTPTestSupport
import Testing

/// Sessions and tokens end when they should: at logout, when their user is
/// removed, demoted or given a new password, and when an admin revokes
/// them; each checked on the next request, against the users file as it is then.
@Suite struct GatewaySessionTests {
    /// A gateway over a users file and a credential ledger on disk.
    struct Fixture {
        let folder: URL
        let usersFile: String
        let ledgerPath: String
        let authority = TokenAuthority(secret: Data("test-secret-test-secret-test-secret!".utf8))
        let store: SQLiteDocumentStore
        var config: GatewayConfig

        init(users: String) throws {
            folder = try makeTemporaryFolder("gateway-sessions")
            usersFile = folder.appendingPathComponent("users").path
            ledgerPath = folder.appendingPathComponent("secret.credentials.json").path
            store = try SQLiteDocumentStore.inMemory()
            config = GatewayConfig(tokens: authority)
            try rewriteUsers(users)
            config.usersFile = usersFile
            config.ledgerPath = ledgerPath
        }

        /// Replaces the users file as an editor saving it would (a new file renamed over the old).
        func rewriteUsers(_ text: String) throws {
            let temporary = usersFile + ".new"
            try text.write(toFile: temporary, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            guard rename(temporary, usersFile) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }

        var app: some ApplicationProtocol { get throws { try buildGatewayApplication(store: store, config: config) } }
    }

    static func login(_ client: some TestClientProtocol, _ name: String, _ password: String) async throws -> (cookie: String, token: String) {
        let answer = try await client.call(.post, "/_session", token: nil, body: ["name": .string(name), "password": .string(password)])
        #expect(answer.status == .ok, "\(answer.json)")
        let setCookie = try #require(answer.headers[.setCookie])
        let cookie = String(try #require(setCookie.split(separator: ";").first))
        return (cookie, try #require(answer.json["token"]?.stringValue))
    }

    static func roles(_ client: some TestClientProtocol, cookie: String) async throws -> (HTTPResponse.Status, JSONValue?) {
        let answer = try await client.call(.get, "/_session", token: nil, headers: [.cookie: cookie])
        return (answer.status, answer.json["userCtx"]?["roles"])
    }

    @Test func logoutEndsTheSessionOnTheServer() async throws {
        let f = try Fixture(users: "carol:s3cret\n")
        try await f.app.test(.router) { client in
            let (cookie, token) = try await Self.login(client, "carol", "s3cret")
            #expect(try await client.call(.get, "/fprint", token: nil, headers: [.cookie: cookie]).status == .ok)
            let out = try await client.call(.delete, "/_session", token: nil, headers: [.cookie: cookie])
            #expect(out.status == .ok)
            #expect(out.headers[.setCookie]?.hasPrefix("AuthSession=;") == true)
            // A copy of the cookie kept from before, and the same session as a bearer token: both refused.
            let copied = try await client.call(.get, "/fprint", token: nil, headers: [.cookie: cookie])
            #expect(copied.status == .unauthorized)
            #expect(copied.json["reason"]?.stringValue?.contains("ended") == true, "\(copied.json)")
            #expect(try await client.call(.get, "/fprint", token: token).status == .unauthorized)
        }
        // The ledger on disk says so (another gateway process reading it would refuse it too).
        let ledger = CredentialLedger(path: f.ledgerPath)
        #expect(ledger.entries().count == 1 && ledger.entries()[0].revokedAt != nil)
    }

    @Test func removalDemotionAndANewPasswordTakeEffectAtOnce() async throws {
        let f = try Fixture(users: "root:toor:admin\nvera:v1ewer:viewer\nbob:b0b\n")
        try await f.app.test(.router) { client in
            let root = try await Self.login(client, "root", "toor")
            let vera = try await Self.login(client, "vera", "v1ewer")
            let bob = try await Self.login(client, "bob", "b0b")
            #expect(try await Self.roles(client, cookie: root.cookie).1 == ["admin"])
            // The admin is demoted, the viewer removed, bob's password changed: the file is saved, nothing restarted.
            try f.rewriteUsers("root:toor:viewer\nbob:n3w\n")
            let demoted = try await Self.roles(client, cookie: root.cookie)
            #expect(demoted.0 == .ok && demoted.1 == ["viewer"], "\(demoted)")
            let write = try await client.call(.put, "/fprint/x", token: nil, body: ["couchbase_sync_gateway_id": "root"],
                                              headers: [.cookie: root.cookie])
            #expect(write.status == .forbidden, "a demoted admin wrote: \(write.json)")
            // The removed viewer's cookie reads nothing, and bob's old login (cookie or token) writes nothing.
            #expect(try await client.call(.get, "/fprint/_all_docs", token: nil, headers: [.cookie: vera.cookie]).status == .unauthorized)
            #expect(try await client.call(.put, "/fprint/b1", token: bob.token, body: ["couchbase_sync_gateway_id": "bob"]).status
                    == .unauthorized)
            #expect(try await Self.roles(client, cookie: bob.cookie).0 == .unauthorized)
            // With the new password bob logs in again.
            let again = try await Self.login(client, "bob", "n3w")
            #expect(try await client.call(.put, "/fprint/b1", token: again.token, body: ["couchbase_sync_gateway_id": "bob"]).status
                    == .created)
        }
    }

    @Test func anIssuedTokenIsRevokedAndCappedByTheUsersFile() async throws {
        let f = try Fixture(users: "carol:s3cret:viewer\n")
        let ledger = CredentialLedger(path: f.ledgerPath)
        // alice has no users-file line: her token was issued as token-only.
        let (alice, aliceClaims) = f.authority.issueWithClaims(user: "alice", role: .user, ttlSeconds: 3600, tokenOnly: true)
        try ledger.record(.init(aliceClaims, note: "fprint gateway token"))
        let (carol, _) = f.authority.issueWithClaims(user: "carol", role: .admin, ttlSeconds: 3600)
        try await f.app.test(.router) { client in
            #expect(try await client.call(.put, "/fprint/a1", token: alice, body: ["couchbase_sync_gateway_id": "alice"]).status == .created)
            // An admin token for a user the users file makes a viewer: a viewer.
            let capped = try await client.call(.get, "/_session", token: carol)
            #expect(capped.json["userCtx"]?["roles"] == ["viewer"])
            // `fprint gateway token --revoke` from another process: the ledger file changes, the next request is refused.
            let other = CredentialLedger(path: f.ledgerPath)
            #expect(try other.revoke { $0.user == "alice" }.count == 1)
            #expect(try await client.call(.get, "/fprint", token: alice).status == .unauthorized)
        }
    }

    @Test func aTokenWithoutAnIDIsNotTaken() async throws {
        let f = try Fixture(users: "")
        // Signed with the right secret, as older gateways issued them: no jti, so nothing could revoke it.
        let legacy = f.authority.sign(["sub": "alice", "iat": 1, "exp": 4_000_000_000])
        try await f.app.test(.router) { client in
            let answer = try await client.call(.get, "/fprint", token: legacy)
            #expect(answer.status == .unauthorized)
            #expect(answer.json["reason"]?.stringValue?.contains("older fprint gateway") == true, "\(answer.json)")
        }
    }

    @Test func aDashboardSessionFromAPastedTokenEndsWithTheToken() async throws {
        let f = try Fixture(users: "")
        let ledger = CredentialLedger(path: f.ledgerPath)
        let (token, claims) = f.authority.issueWithClaims(user: "vera", role: .viewer, ttlSeconds: 3600)
        try ledger.record(.init(claims, note: "fprint gateway token"))
        try await f.app.test(.router) { client in
            let login = try await client.execute(uri: "/_dashboard/login", method: .post,
                                                 headers: [.contentType: "application/x-www-form-urlencoded", .origin: "http://localhost"],
                                                 body: ByteBuffer(string: "name=&password=\(token)")) { $0 }
            #expect(login.status == .seeOther)
            let cookie = String(try #require(login.headers[.setCookie]?.split(separator: ";").first))
            #expect(try await Self.roles(client, cookie: cookie).1 == ["viewer"])
            try ledger.revoke { $0.id == claims.id }
            #expect(try await Self.roles(client, cookie: cookie).0 == .unauthorized)
        }
    }

    @Test func theLedgerListsWhatWasIssued() async throws {
        let f = try Fixture(users: "carol:s3cret\n")
        let issued = Handover<(cookie: String, token: String)>()
        try await f.app.test(.router) { client in
            issued.fulfil(try await Self.login(client, "carol", "s3cret"))
        }
        let login = await issued.value()
        let entries = CredentialLedger(path: f.ledgerPath).entries()
        #expect(entries.map(\.user) == ["carol"] && entries.map(\.note) == ["/_session login"] && entries[0].origin == .password)
        // The file holds ids and expiries, never a token, and only its owner may read it.
        let text = try String(contentsOfFile: f.ledgerPath, encoding: .utf8)
        // (Not "eyJ", a JWT's start: a random credential id may hold it.)
        let cookieValue = String(login.cookie.drop { $0 != "=" }.dropFirst())
        #expect(!login.token.isEmpty && !text.contains(login.token) && !text.contains(cookieValue))
        #expect(!text.contains(#/[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/#), "a JWT-shaped text in \(text)")
        let mode = try FileManager.default.attributesOfItem(atPath: f.ledgerPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
