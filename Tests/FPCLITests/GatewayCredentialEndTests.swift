import FPCore
import FPTestSupport
import Foundation
import Testing

/// How a gateway's credentials end, through the real binary: a removed
/// user's token never outlives their line (and never turns admin), an old
/// password set back does not revive the logins it ended, and logins cannot
/// grow the credential ledger without bound.
@Suite(.serialized) struct GatewayCredentialEndTests {
    typealias Gateway = GatewayAttackTests.Gateway

    /// Replaces the users file as an editor saving it would (a new file renamed over the old).
    static func rewriteUsers(_ gateway: Gateway, _ text: String) throws {
        let path = gateway.runner.home.appendingPathComponent("users").path
        let temporary = path + ".new"
        FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static func token(_ gateway: Gateway, _ arguments: [String]) async throws -> FprintRunner.Result {
        try await gateway.runner.run(["gateway", "token", "--secret-file", gateway.runner.home.appendingPathComponent("secret").path]
                                     + arguments)
    }

    static func bearer(_ token: String) -> String {
        "Authorization: Bearer \(token.trimmingCharacters(in: .whitespacesAndNewlines))\r\n"
    }

    /// `POST /_session` as JSON; the status and the answer's `token`.
    static func login(_ gateway: Gateway, _ name: String, _ password: String) async -> (Int?, String?) {
        let answer = await gateway.request("POST /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                                           body: #"{"name":"\#(name)","password":"\#(password)"}"#)
        let json = String(answer.split(separator: "\r\n\r\n", maxSplits: 1).last ?? "")
        let token = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["token"] as? String
        return (RawConnection.status(answer), token)
    }

    @Test func aRemovedUsersCappedTokenNeverTurnsAdmin() async throws {
        let gateway = try await Gateway(users: "alice:alice-pw:user\nbob:bob-pw:user\n")
        let users = gateway.runner.home.appendingPathComponent("users").path
        // An admin token issued for alice, who is a user in the users file: capped to user.
        let issued = try await Self.token(gateway, ["--user", "alice", "--role", "admin", "--users", users])
        #expect(issued.status == 0, "\(issued.stderr)")
        let auth = Self.bearer(issued.stdout)
        let session = await gateway.request("GET /_session HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth)
        #expect(session.contains(#""roles":[]"#), "\(session)")
        // Her line is removed: the same token writes nothing, least of all as bob.
        try Self.rewriteUsers(gateway, "bob:bob-pw:user\n")
        let forged = await gateway.request("PUT /fprint/signed-as-bob HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + auth,
                                           body: #"{"couchbase_sync_gateway_id":"bob"}"#)
        #expect(RawConnection.status(forged) == 401, "a removed user's token wrote: \(forged.prefix(400))")
        #expect(forged.contains("removed from the users file"), "\(forged.suffix(300))")
        // Back in the file, she is a new user: what was issued before stays ended.
        try Self.rewriteUsers(gateway, "alice:alice-pw:user\nbob:bob-pw:user\n")
        let back = await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth)
        #expect(RawConnection.status(back) == 401, "\(back.prefix(300))")
        // A token for someone without a line is issued only when asked for as token-only, and then lives without one.
        let refused = try await Self.token(gateway, ["--user", "dashboard", "--role", "viewer"])
        #expect(refused.status == 64 && refused.stderr.contains("not in the users file"), "\(refused.stderr)")
        let dashboard = try await Self.token(gateway, ["--user", "dashboard", "--role", "viewer", "--token-only"])
        #expect(dashboard.status == 0 && dashboard.stderr.contains("token-only"), "\(dashboard.stderr)")
        #expect(RawConnection.status(await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + Self.bearer(dashboard.stdout))) == 200)
        let listed = try await Self.token(gateway, ["--user", "bob", "--token-only"])
        #expect(listed.status == 64 && listed.stderr.contains("is in the users file"), "\(listed.stderr)")
    }

    @Test func anOldPasswordSetBackDoesNotReviveItsLogins() async throws {
        let gateway = try await Gateway(users: "alice:first-pw\n")
        let (status, token) = await Self.login(gateway, "alice", "first-pw")
        #expect(status == 200)
        let auth = Self.bearer(try #require(token))
        let get = "GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth
        #expect(RawConnection.status(await gateway.request(get)) == 200)
        // A new password (seen at the next request), then the old one again.
        try Self.rewriteUsers(gateway, "alice:second-pw\n")
        #expect(RawConnection.status(await gateway.request(get)) == 401)
        try Self.rewriteUsers(gateway, "alice:first-pw\n")
        let revived = await gateway.request(get)
        #expect(RawConnection.status(revived) == 401, "the old password revived its login: \(revived.prefix(300))")
        // A new login with it works.
        let (again, newToken) = await Self.login(gateway, "alice", "first-pw")
        #expect(again == 200)
        #expect(RawConnection.status(await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + Self.bearer(newToken ?? ""))) == 200)
    }

    @Test func loginsCannotGrowTheLedgerWithoutBound() async throws {
        let gateway = try await Gateway(users: "vera:v-pw:viewer\ncarol:c-pw\n")
        var tokens: [String] = []
        var statuses: [Int?] = []
        let started = Date()
        for _ in 0..<80 {
            let (status, token) = await Self.login(gateway, "vera", "v-pw")
            statuses.append(status)
            if let token { tokens.append(token) }
        }
        let elapsed = Date().timeIntervalSince(started)
        // A burst of 30, then one a second (however slow this machine is), the rest 429:
        // a correct password no longer buys a ledger entry a time.
        let letThrough = tokens.count
        #expect(letThrough >= 30 && Double(letThrough) <= 31 + elapsed, "\(letThrough) in \(elapsed) s: \(statuses)")
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 } && statuses.contains(429), "\(statuses)")
        // Another user is not held by vera's limit.
        #expect(await Self.login(gateway, "carol", "c-pw").0 == 200)
        // vera keeps her 20 newest sessions: the older ones ended, and say why.
        let oldest = await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + Self.bearer(tokens[letThrough - 21]))
        #expect(RawConnection.status(oldest) == 401 && oldest.contains("newer logins"), "\(oldest.suffix(300))")
        let kept = await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + Self.bearer(tokens[letThrough - 20]))
        #expect(RawConnection.status(kept) == 200, "\(kept.suffix(300))")
        // The ledger holds her 20 live sessions and at most 20 ended ones, and lists them so.
        let list = try await Self.token(gateway, ["--list", "--json"])
        let vera = try list.lines.map { try gateway.runner.json($0) }.filter { $0["user"] as? String == "vera" }
        let ended = vera.filter { $0["ended"] as? String == "superseded" }.count
        #expect(vera.count - ended == 20 && ended == min(letThrough - 20, 20), "\(vera.count) entries for vera, \(ended) ended")
    }
}
