import FPCore
import FPTestSupport
import Foundation
import Testing

/// The gateway's rules on what a request may carry, through the real binary:
/// names cannot forge log lines, an id with NUL aliases nothing, bodies and
/// logouts follow the documented rules, one name is guessed at a bounded
/// pace from any number of addresses, and the access log can be rotated.
@Suite(.serialized) struct GatewayRequestRulesTests {
    typealias Gateway = GatewayAttackTests.Gateway

    static func adminToken(_ gateway: Gateway, user: String = "root") async throws -> String {
        let issued = try await gateway.runner.run(["gateway", "token", "--user", user, "--role", "admin", "--secret-file",
                                                   gateway.runner.home.appendingPathComponent("secret").path])
        #expect(issued.status == 0, "\(issued.stderr)")
        return issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func body(_ answer: String) -> String { String(answer.split(separator: "\r\n\r\n", maxSplits: 1).last ?? "") }

    @Test func aNameFromAClientCannotForgeALogLine() async throws {
        let gateway = try await Gateway()
        let forged = "mallory\\nfprint gateway: FORGED admin logged in"
        _ = await gateway.request("POST /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                                  body: #"{"name":"\#(forged)","password":"x"}"#)
        let basic = Data("mallory\nFORGED by Basic:x".utf8).base64EncodedString()
        _ = await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(basic)\r\n")
        _ = await gateway.request("POST /_dashboard/login HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.0.0.1\r\n"
                                  + "Content-Type: application/x-www-form-urlencoded\r\n",
                                  body: "name=mallory%0Afprint+gateway%3A+FORGED+by+form&password=x")
        // Three failures logged, each on one line, the newline written as \n.
        var log = ""
        for _ in 0..<100 {
            log = gateway.server.stderrLog.text
            if log.components(separatedBy: "login failed").count > 3 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let lines = log.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("fprint gateway: FORGED") || $0.hasPrefix("FORGED") }, "\(log)")
        #expect(lines.filter { $0.contains("login failed") && $0.contains(#"user=mallory\n"#) && $0.contains("FORGED") }.count == 3,
                "\(log)")
    }

    @Test func anIDWithNULIsRefusedOnEveryRoute() async throws {
        let gateway = try await Gateway(users: "alice:alice-pw:user\nbob:bob-pw:user\n")
        let bob = "Authorization: Basic \(Data("bob:bob-pw".utf8).base64EncodedString())\r\n"
        let alice = "Authorization: Basic \(Data("alice:alice-pw".utf8).base64EncodedString())\r\n"
        let json = "Content-Type: application/json\r\n"
        let put = await gateway.request("PUT /fprint/bobdoc HTTP/1.1\r\nHost: 127.0.0.1\r\n" + json + bob,
                                        body: #"{"couchbase_sync_gateway_id":"bob","secret":"b"}"#)
        #expect(RawConnection.status(put) == 201)
        // Read, overwritten, given an attachment, as bob's document under another name: all 400.
        for (head, body) in [("GET /fprint/bobdoc%00x", ""), ("PUT /fprint/bobdoc%00x", #"{"couchbase_sync_gateway_id":"alice"}"#),
                             ("PUT /fprint/bobdoc%00x/a.txt", "text"), ("GET /fprint/_local/x%00y", ""),
                             ("DELETE /fprint/bobdoc%00x?rev=1-00000000000000000000000000000000", "")] {
            let answer = await gateway.request("\(head) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + json + alice, body: body)
            #expect(RawConnection.status(answer) == 400, "\(head): \(answer.prefix(300))")
            #expect(!answer.contains(#""secret":"b""#), "\(head) read bob's document")
        }
        // In bodies: _bulk_docs refuses the document in its own entry; the queries refuse the request.
        let bulk = await gateway.request("POST /fprint/_bulk_docs HTTP/1.1\r\nHost: 127.0.0.1\r\n" + json + alice,
                                         body: #"{"docs":[{"_id":"bobdoc\u0000x","couchbase_sync_gateway_id":"alice"}]}"#)
        #expect(RawConnection.status(bulk) == 201 && Self.body(bulk).contains(#""error":"bad_request""#), "\(bulk.suffix(300))")
        for (path, body) in [("_all_docs", #"{"keys":["bobdoc\u0000x"]}"#), ("_revs_diff", #"{"bobdoc\u0000x":["1-a"]}"#),
                             ("_bulk_get", #"{"docs":[{"id":"bobdoc\u0000x"}]}"#)] {
            let answer = await gateway.request("POST /fprint/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + json + alice, body: body)
            #expect(RawConnection.status(answer) == 400, "\(path): \(answer.prefix(300))")
        }
        let changes = await gateway.request("GET /fprint/_changes?filter=_doc_ids&doc_ids=%5B%22bobdoc%5Cu0000x%22%5D HTTP/1.1\r\n"
                                            + "Host: 127.0.0.1\r\n" + alice)
        #expect(RawConnection.status(changes) == 400, "\(changes.prefix(300))")
        // bob's document is as he wrote it.
        let read = await gateway.request("GET /fprint/bobdoc HTTP/1.1\r\nHost: 127.0.0.1\r\n" + bob)
        #expect(Self.body(read).contains(#""secret":"b""#) && Self.body(read).contains(#""_rev":"1-"#), "\(read.suffix(200))")
    }

    @Test func bodiesAndLogoutsFollowTheDocumentedRules() async throws {
        let gateway = try await Gateway()
        let login = await gateway.request("POST /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
                                          body: #"{"name":"alice","password":"correct-horse"}"#)
        let cookie = try #require(login.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: authsession=") })
            .dropFirst("Set-Cookie: ".count).split(separator: ";")[0]
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(Self.body(login).utf8)) as? [String: Any])
        let token = try #require(answer["token"] as? String)
        // A document PUT as text/plain with the cookie: 415, as the docs say; as JSON or with no type: stored.
        let doc = #"{"couchbase_sync_gateway_id":"alice"}"#
        for (type, expected) in [("Content-Type: text/plain\r\n", 415), ("Content-Type: application/x-www-form-urlencoded\r\n", 415),
                                 ("Content-Type: application/json\r\n", 201), ("", 201)] {
            let answer = await gateway.request("PUT /fprint/d\(expected)\(type.count) HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n" + type,
                                               body: doc)
            #expect(RawConnection.status(answer) == expected, "\(type): \(answer.prefix(300))")
        }
        let local = await gateway.request("PUT /fprint/_local/cp HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\nContent-Type: text/plain\r\n",
                                          body: "{}")
        #expect(RawConnection.status(local) == 415, "\(local.prefix(300))")
        // A login posted from another site's page, known only by its Referer: refused, no cookie.
        let foreign = await gateway.request("POST /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nReferer: http://evil.example/page\r\n"
                                            + "Content-Type: application/json\r\n", body: #"{"name":"alice","password":"correct-horse"}"#)
        #expect(RawConnection.status(foreign) == 403 && !foreign.lowercased().contains("set-cookie: authsession=ey"), "\(foreign.prefix(400))")
        // DELETE /_session with a login's bearer token ends it, and says so.
        let before = await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n")
        #expect(RawConnection.status(before) == 200, "\(before)")
        let out = await gateway.request("DELETE /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n")
        #expect(Self.body(out).contains(#""ended":true"#), "\(out)")
        #expect(RawConnection.status(await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n")) == 401)
        // With an admin's token it ends nothing, and says that.
        let issued = try await Self.adminToken(gateway, user: "alice")
        let kept = await gateway.request("DELETE /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(issued)\r\n")
        #expect(Self.body(kept).contains(#""ended":false"#) && Self.body(kept).contains("revoked"), "\(kept)")
        #expect(RawConnection.status(await gateway.request("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(issued)\r\n")) == 200)
    }

    /// One name guessed from 200 addresses at once: at most 5 checks a second
    /// in all, while the real user, from an address they logged in from before, gets in at once.
    @Test func oneNameIsGuessedAtABoundedPaceFromAnyNumberOfAddresses() async throws {
        let gateway = try await Gateway()
        #expect(await gateway.login("alice", "correct-horse", from: "127.0.0.1") == 200)
        let stop = Flag()
        let statuses = LockedList()
        let started = Date()
        let attack = GatewayAttackTests.onThreads(200, stop: stop) { n in
            let address = "127.0.\(1 + n / 200).\(2 + n % 200)"
            statuses.append(String(gateway.loginBlocking("alice", "guess-\(n)", from: address) ?? 0))
        }
        try await Task.sleep(for: .seconds(6))
        let victimStarted = Date()
        let victim = await gateway.login("alice", "correct-horse", from: "127.0.0.1")
        let victimSeconds = Date().timeIntervalSince(victimStarted)
        try await Task.sleep(for: .seconds(2))
        stop.set()
        _ = await attack.value()
        let elapsed = Date().timeIntervalSince(started)
        let checked = statuses.items.filter { $0 == "401" }.count
        print("200 addresses guessing one name: \(checked) checks in \(String(format: "%.1f", elapsed)) s "
              + "(\(String(format: "%.1f", Double(checked) / elapsed))/s); the real user: \(victim ?? 0) in \(String(format: "%.2f", victimSeconds)) s")
        #expect(Double(checked) <= elapsed * 5 + 10, "\(checked) checks in \(elapsed) s")
        #expect(victim == 200)
        #expect(victimSeconds < 5, "the real user waited \(victimSeconds) s")
    }

    @Test func sighupReopensTheAccessLog() async throws {
        let gateway = try await Gateway()
        let get = "GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(Data("alice:correct-horse".utf8).base64EncodedString())\r\n"
        #expect(RawConnection.status(await gateway.request(get)) == 200)
        // logrotate moves the file away and signals the gateway.
        let rotated = gateway.accessLog + ".1"
        #expect(rename(gateway.accessLog, rotated) == 0)
        #expect(kill(gateway.pid, SIGHUP) == 0)
        var reopened = false
        for _ in 0..<100 where !reopened {
            try await Task.sleep(for: .milliseconds(50))
            reopened = FileManager.default.fileExists(atPath: gateway.accessLog)
        }
        #expect(reopened, "no new access log after SIGHUP")
        #expect(RawConnection.status(await gateway.request(get)) == 200, "the gateway did not survive SIGHUP")
        let old = try String(contentsOfFile: rotated, encoding: .utf8).split(separator: "\n")
        #expect(old.count == 1)
        #expect(gateway.accessLines().count == 1, "\(gateway.accessLines())")
        let mode = try FileManager.default.attributesOfItem(atPath: gateway.accessLog)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
