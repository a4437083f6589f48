import FPCore
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// CouchDB 3.5's recorded answers (`Fixtures/couchdb-3.5-answers.txt`), by
/// the curl command that produced them.
struct RecordedCouch {
    struct Answer {
        var command: String
        var response: HTTPResponse
    }

    let answers: [Answer]

    init() throws {
        let text = String(decoding: try fixture("couchdb-3.5-answers.txt"), as: UTF8.self)
        answers = text.components(separatedBy: ">>> ").dropFirst().compactMap { block in
            let lines = block.components(separatedBy: "\n")
            guard lines.count > 1, let status = Int(lines[1].split(separator: " ").dropFirst().first ?? "") else { return nil }
            var headers = HTTPHeaders()
            var index = 2
            while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                if let colon = lines[index].firstIndex(of: ":") {
                    headers.add(String(lines[index][..<colon]),
                                lines[index][lines[index].index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                index += 1
            }
            let body = lines[min(index + 1, lines.count)...].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
            return Answer(command: lines[0], response: HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        }
    }

    func answer(_ fragments: String...) throws -> Answer {
        try #require(answers.first { a in fragments.allSatisfy { a.command.contains($0) } })
    }
}

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_790_000_000)
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    func advance(_ seconds: Double) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

@Suite struct ClientAuthTests {
    /// A CouchDB that answers `POST /_session` as recorded (the cookie for
    /// the right password, the 401 otherwise) and `GET /db` for the cookie.
    func recordedCouch(password: String = "PASSWORD") throws -> ScriptedTransport {
        let couch = try RecordedCouch()
        let ok = try couch.answer("x-www-form-urlencoded", "password=PASSWORD").response
        let wrong = try couch.answer("x-www-form-urlencoded", "password=wrong").response
        return ScriptedTransport { request in
            switch (request.method, request.url.path) {
            case (.post, "/_session"):
                let form = String(decoding: request.body ?? Data(), as: UTF8.self)
                return form == "name=admin&password=\(password)" ? ok : wrong
            case (.get, "/fprint"):
                return request.headers["Cookie"] == "AuthSession=COOKIE"
                    ? jsonResponse(200, ["db_name": "fprint", "update_seq": "0-x"])
                    : jsonResponse(401, ["error": "unauthorized", "reason": "You are not authorized to access this db."])
            default:
                return jsonResponse(404, ["error": "not_found", "reason": "missing"])
            }
        }
    }

    let sessionURL = URL(string: "http://127.0.0.1:5984/_session")!

    @Test func loginSendsTheReplicatorsFormAndKeepsTheRecordedCookie() async throws {
        let transport = try recordedCouch()
        let clock = TestClock()
        let answer = try await CouchSession.login(sessionURL: sessionURL, name: "admin", password: "PASSWORD", transport: transport,
                                            now: clock.now)
        // The request has the shape CouchDB's replicator sends (recorded command line)
        let sent = try #require(transport.requests.first)
        #expect(sent.method == .post)
        #expect(sent.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self) == "name=admin&password=PASSWORD")
        #expect(sent.headers["Authorization"] == nil)
        // CouchDB's answer: the name, the cookie and its Max-Age=600
        #expect(answer.name == "admin")
        #expect(answer.token == nil)
        let cookie = try #require(answer.cookie)
        #expect(cookie.value == "COOKIE" && cookie.lifetime == 600)
        #expect(cookie.expiresAt == clock.now.addingTimeInterval(600))
    }

    @Test func theCookieIsSentAsCookieNeverAsBearer() async throws {
        let transport = try recordedCouch()
        let clock = TestClock()
        let session = CouchSession(sessionURL: sessionURL, name: "admin", password: "PASSWORD",
                                   cookie: .init(value: "COOKIE", expiresAt: clock.now + 600, lifetime: 600),
                                   transport: transport, now: { clock.now })
        let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:5984/fprint")!, transport: transport,
                                    credentials: .session(session), retry: .none)
        #expect(try await remote.json(.get, [])["db_name"] == "fprint")
        let request = try #require(transport.requests.last)
        #expect(request.headers["Cookie"] == "AuthSession=COOKIE")
        #expect(request.headers["Authorization"] == nil)
        #expect(transport.requests.count == 1)  // no login while the cookie is young
    }

    @Test func theSessionLogsInAgainWithinTheLastTenthOfItsLife() async throws {
        let transport = try recordedCouch()
        let clock = TestClock()
        let renewed = DelayLog()
        let session = CouchSession(sessionURL: sessionURL, name: "admin", password: "PASSWORD",
                                   cookie: .init(value: "OLD", expiresAt: clock.now + 600, lifetime: 600),
                                   transport: transport, now: { clock.now }, onRenew: { renewed.add($0.lifetime) })
        let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:5984/fprint")!, transport: transport,
                                    credentials: .session(session), retry: .none)
        clock.advance(530)  // 70 s left: more than a tenth, the old cookie goes
        _ = try await remote.send(.get, ["x"])
        #expect(transport.requests.last?.headers["Cookie"] == "AuthSession=OLD")
        #expect(renewed.values.isEmpty)
        clock.advance(20)  // 50 s left: log in first
        #expect(try await remote.json(.get, [])["db_name"] == "fprint")
        let paths = transport.requests.map { "\($0.method) \($0.url.path)" }
        #expect(paths.suffix(2) == ["POST /_session", "GET /fprint"])
        #expect(transport.requests.last?.headers["Cookie"] == "AuthSession=COOKIE")
        #expect(renewed.values == [600])
    }

    @Test func a401OnTheCookieLogsInAgainOnceAndRepeatsTheRequest() async throws {
        let transport = try recordedCouch()
        let clock = TestClock()
        let session = CouchSession(sessionURL: sessionURL, name: "admin", password: "PASSWORD",
                                   cookie: .init(value: "REVOKED", expiresAt: clock.now + 600, lifetime: 600),
                                   transport: transport, now: { clock.now })
        let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:5984/fprint")!, transport: transport,
                                    credentials: .session(session), retry: .none)
        #expect(try await remote.json(.get, [])["db_name"] == "fprint")
        #expect(transport.requests.map { "\($0.method) \($0.url.path)" } == ["GET /fprint", "POST /_session", "GET /fprint"])
    }

    @Test func aWrongPasswordIsACredentialErrorWithCouchDBsReasonAndNoPassword() async throws {
        let transport = try recordedCouch(password: "the-right-one")
        do {
            _ = try await CouchSession.login(sessionURL: sessionURL, name: "admin", password: "PASSWORD", transport: transport)
            Issue.record("login with a wrong password succeeded")
        } catch {
            guard case .authRejected(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("Name or password is incorrect."))
            #expect(why.contains("POST http://127.0.0.1:5984/_session answered 401"))
            #expect(!why.contains("PASSWORD"))
        }
    }

    /// CouchDB's 400s for credentials it cannot read (a cookie sent as a
    /// bearer token, a forged cookie) are credential errors, not protocol ones.
    @Test(arguments: ["Malformed token", "Bad HMAC", "Malformed AuthSession cookie. Please clear your cookies."])
    func couchDBsCredentialFourHundredsAreAuthErrors(reason: String) async throws {
        let remote = RemoteDatabase(url: URL(string: "http://couch.test:5984/fprint")!, transport: ScriptedTransport { _ in
            jsonResponse(400, ["error": "bad_request", "reason": .string(reason)])
        }, credentials: .bearer("COOKIE"), retry: .none)
        await #expect(throws: SyncError.authRejected("GET http://couch.test:5984/fprint/_changes answered 400: \(reason)")) {
            try await remote.json(.get, ["_changes"], query: [("since", "0")])
        }
        // Any other 400 stays a protocol error
        let other = RemoteDatabase(url: URL(string: "http://couch.test:5984/fprint")!, transport: ScriptedTransport { _ in
            jsonResponse(400, ["error": "bad_request", "reason": "invalid UTF-8 JSON"])
        }, credentials: .none, retry: .none)
        await #expect(throws: SyncError.protocolError("POST http://couch.test:5984/fprint/_revs_diff answered HTTP 400: invalid UTF-8 JSON")) {
            try await other.json(.post, ["_revs_diff"], body: [:])
        }
    }

    @Test func errorsNameTheMethodAndTheDatabasePath() async throws {
        let couch = try RecordedCouch()
        let forbidden = try couch.answer("bob:PASSWORD", "_design/w").response
        let remote = RemoteDatabase(url: URL(string: "http://couch.test:5984/fprint")!, transport: ScriptedTransport { _ in forbidden },
                                    credentials: .basic(user: "member", password: "SECRET-PW"), retry: .none)
        await #expect(throws: SyncError.authRejected("GET http://couch.test:5984/fprint answered 403: You are not a db or server admin.")) {
            try await remote.json(.get, [])
        }
    }

    @Test func urlCredentialsGoOnEveryRequestAsBasic() async throws {
        let (url, credentials) = URLCredentials.split(URL(string: "http://bob:p%40ss%20word@127.0.0.1:5984/fprint")!)
        #expect(url.absoluteString == "http://127.0.0.1:5984/fprint")
        #expect(credentials == URLCredentials(user: "bob", password: "p@ss word"))
        let transport = ScriptedTransport { _ in jsonResponse(200, ["ok": true]) }
        let remote = RemoteDatabase(url: url, transport: transport, credentials: .basic(user: "bob", password: "p@ss word"))
        _ = try await remote.send(.get, [])
        _ = try await remote.send(.post, ["_revs_diff"], json: [:])
        _ = try await remote.send(.get, ["_local", "x"])
        let expected = "Basic " + Data("bob:p@ss word".utf8).base64EncodedString()
        #expect(transport.requests.count == 3)
        #expect(transport.requests.allSatisfy { $0.headers["Authorization"] == expected })
        #expect(transport.requests.allSatisfy { !$0.url.absoluteString.contains("bob") })
    }

    /// Without a user to sign with, an unsigned document stops the push
    /// before anything is sent: never `couchbase_sync_gateway_id: "-"` on a gateway.
    @Test func nothingUnsignedIsPushedWithoutASigner() async throws {
        let transport = gatewayLackingEverything()
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert([NewDocument(id: "unsigned", body: body(owner: "-"))])
        let remote = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: transport, credentials: .basic(user: "u", password: "p"))
        for dryRun in [true, false] {
            await #expect(throws: SyncError.noSigner("unsigned")) {
                try await Replicator(store: store, remote: remote, userID: nil, dryRun: dryRun).push()
            }
        }
        #expect(!transport.requests.contains { $0.url.path == "/db/_bulk_docs" })
        #expect(try store.document(id: "unsigned", includeDeleted: false)?.body["couchbase_sync_gateway_id"] == "-")
        #expect(try store.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["unsigned"])
        // Signed documents need no signer and still go
        try store.insert([NewDocument(id: "signed", body: body(owner: "carol"))])
        let onlySigned = try SQLiteDocumentStore.inMemory()
        try onlySigned.insert([NewDocument(id: "signed", body: body(owner: "carol"))])
        let report = try await Replicator(store: onlySigned, remote: remote, userID: nil).push()
        #expect(report.written == 1)
    }
}
