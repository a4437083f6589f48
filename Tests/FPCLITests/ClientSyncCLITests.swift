import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// `fprint sync`, `login`, `status`, `list` against the real gateway binary
/// and against CouchDB's recorded answers: URL credentials, refused
/// documents, session cookies, per-URL credentials.
@Suite(.serialized) struct ClientSyncCLITests {
    /// A sandbox, a users file and a gateway with an access log.
    struct Setup {
        var runner: FprintRunner
        var gatewayDB: String
        var secret: String
        var users: String
        var accessLog: String

        init(users lines: String) throws {
            runner = try FprintRunner()
            gatewayDB = runner.home.appendingPathComponent("gateway.sqlite").path
            secret = runner.home.appendingPathComponent("gw-secret").path
            users = runner.home.appendingPathComponent("users").path
            accessLog = runner.home.appendingPathComponent("access.log").path
            try lines.write(toFile: users, atomically: true, encoding: .utf8)
            chmod(users, 0o600)
        }

        func gateway(_ extra: [String] = []) async throws -> GatewayProcess {
            try await GatewayProcess(runner: runner, db: gatewayDB, secret: secret,
                               extra: ["--users", users, "--access-log", accessLog] + extra)
        }

        /// The access log's JSON lines.
        func accessLines() throws -> [[String: Any]] {
            let text = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
            return try text.split(separator: "\n").map { try runner.json(String($0)) }
        }
    }

    @Test func urlCredentialsGoOnEveryRequestAndSignTheDocuments() async throws {
        let password = "s3cret-pw-XYZ"
        let s = try Setup(users: "bob:\(password)\n")
        let gateway = try await s.gateway()
        defer { gateway.kill9() }
        let measured = try await s.runner.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        #expect(measured.status == 0, "\(measured.stderr)")
        let url = "http://bob:\(password)@127.0.0.1:\(gateway.port)/fprint"
        let sync = try await s.runner.run(["sync", "--gateway", url])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("sent 1 of 1 changed"), "\(sync.stdout)")
        // Signed as the user the URL names, which GET /_session confirmed
        let gatewayStore = try SQLiteDocumentStore(path: s.gatewayDB)
        let docs = try gatewayStore.changes(since: 0, limit: 10)
        #expect(docs.count == 1 && docs.allSatisfy { $0.body["couchbase_sync_gateway_id"] == "bob" })
        // Every request carried the credentials: none was refused, and the
        // gateway knew bob on each it answered (its log names no user on 404s)
        let lines = try s.accessLines()
        #expect(lines.count >= 6)
        #expect(lines.allSatisfy { ($0["status"] as? Int ?? 0) != 401 }, "\(lines)")
        #expect(lines.filter { ($0["status"] as? Int ?? 0) < 400 }.allSatisfy { $0["user"] as? String == "bob" }, "\(lines)")
        #expect(lines.contains { $0["path"] as? String == "/_session" })
        // The pull right after counts the pushed document as already here
        #expect(sync.stdout.contains("received 0 of 1 changed (1 already here)"), "\(sync.stdout)")

        let status = try await s.runner.run(["status", "--gateway", url])
        #expect(status.stdout.contains("credential: user bob and a password from the gateway URL"), "\(status.stdout)")
        let statusJSON = try await s.runner.run(["status", "--gateway", url, "--json"])
        let object = try s.runner.json(statusJSON.stdout)
        #expect((object["credential"] as? [String: Any])?["user"] as? String == "bob")
        #expect(object["gateway"] as? String == "http://127.0.0.1:\(gateway.port)/fprint")
        // A wrong password: 77, and still no password anywhere
        let wrong = try await s.runner.run(["sync", "--gateway", "http://bob:nope-\(password)@127.0.0.1:\(gateway.port)/fprint"])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        for text in [sync.stdout, sync.stderr, status.stdout, statusJSON.stdout, wrong.stdout, wrong.stderr,
                     gateway.stderrLog.text, (try? String(contentsOfFile: s.accessLog, encoding: .utf8)) ?? ""] {
            #expect(!text.contains(password), "password in: \(text)")
        }
    }

    /// A document larger than the gateway's body limit gets 413 alone: the
    /// rest goes, it stays pending with the reason, sync exits 77, the next
    /// sync offers it again, and once the gateway takes it the record goes.
    @Test func aRefusedDocumentIsReportedAndRetried() async throws {
        var s = try Setup(users: "")
        let issued = try await s.runner.run(["gateway", "token", "--user", "alice", "--secret-file", s.secret])
        s.runner.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let store = try SQLiteDocumentStore(path: s.runner.db)
        var big: JSONValue = ["type": "scan", "level": "J1NP", "x": 1, "y": 2, "createdAt": "2026-11-22T06:00:00.000Z",
                              "couchbase_sync_gateway_id": "alice"]
        big["note"] = .string(String(repeating: "x", count: 300_000))
        try store.insert([NewDocument(id: "small-1", body: ["type": "scan", "level": "J1NP", "x": 1, "y": 2, "createdAt": "2026-11-22T06:00:00.000Z", "couchbase_sync_gateway_id": "alice"]),
                          NewDocument(id: "big", body: big),
                          NewDocument(id: "small-2", body: ["type": "scan", "level": "J1NP", "x": 3, "y": 4, "createdAt": "2026-11-22T06:00:01.000Z", "couchbase_sync_gateway_id": "alice"])])
        var gateway = try await s.gateway(["--body-limit", "100000"])
        let first = try await s.runner.run(["sync", "--gateway", gateway.url, "--push-only"])
        #expect(first.status == 77, "\(first.stderr)")
        #expect(first.stderr.contains("refused by the gateway: big: HTTP 413"), "\(first.stderr)")
        #expect(try Set(documentSet(s.gatewayDB).keys) == ["small-1", "small-2"])

        let status = try await s.runner.run(["status", "--gateway", gateway.url])
        #expect(status.stdout.contains("pending:    1 not yet synced"), "\(status.stdout)")
        #expect(status.stdout.contains("refused:    1 document,"), "\(status.stdout)")
        #expect(status.stdout.contains("big 1-"), "\(status.stdout)")
        let statusJSON = try s.runner.json(try await s.runner.run(["status", "--json"]).stdout)
        let refused = try #require(statusJSON["refused"] as? [[String: Any]])
        #expect(refused.count == 1 && refused[0]["id"] as? String == "big")
        #expect((refused[0]["reason"] as? String)?.hasPrefix("HTTP 413") == true)
        let listed = try await s.runner.run(["list", "--unsynced", "--json"])
        let entry = try s.runner.json(try #require(listed.lines.first))
        #expect(entry["id"] as? String == "big")
        #expect(((entry["refused"] as? [String: Any])?["reason"] as? String)?.hasPrefix("HTTP 413") == true)
        let table = try await s.runner.run(["list", "--unsynced"])
        #expect(table.stdout.contains("refused by the gateway"), "\(table.stdout)")

        // Nothing changed locally, yet the next sync sends it again (and is refused again)
        let bulkBefore = try s.accessLines().filter { $0["path"] as? String == "/fprint/_bulk_docs" }.count
        let second = try await s.runner.run(["sync", "--gateway", gateway.url, "--push-only"])
        #expect(second.status == 77, "\(second.stderr)")
        #expect(try s.accessLines().filter { $0["path"] as? String == "/fprint/_bulk_docs" }.count > bulkBefore)

        // A gateway that takes it: synced, record gone, exit 0
        gateway.kill9()
        gateway = try await s.gateway(["--port", String(gateway.port)])  // the same URL: refusals are per gateway
        defer { gateway.kill9() }
        let third = try await s.runner.run(["sync", "--gateway", gateway.url, "--push-only"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try documentSet(s.gatewayDB) == documentSet(s.runner.db))
        let after = try await s.runner.run(["status", "--gateway", gateway.url])
        #expect(after.stdout.contains("pending:    0") && !after.stdout.contains("refused:"), "\(after.stdout)")
    }

    /// `fprint login` against CouchDB's recorded `/_session` answers: the
    /// cookie is stored per URL (0600) beside the migrated single token,
    /// sent as `Cookie` (never Bearer), and renewed once it is expired.
    @Test func couchDBSessionLoginPerURLCredentialsAndMigration() async throws {
        var runner = try FprintRunner()
        runner.environment["FPRINT_TOKEN"] = nil
        try runner.createEmptyDatabase()
        let transcript = try CouchTranscript()
        let ok = try transcript.answer("x-www-form-urlencoded", "password=PASSWORD")
        let wrong = try transcript.answer("x-www-form-urlencoded", "password=wrong")
        let peer = try RecordedPeer { request in
            let cookie = request.header("Cookie") == "AuthSession=COOKIE"
            switch (request.method, request.path.split(separator: "?").first.map(String.init) ?? "") {
            case ("POST", "/_session"):
                return String(decoding: request.body, as: UTF8.self) == "name=admin&password=PASSWORD" ? ok : wrong
            case ("GET", "/_session"):
                return .init(status: 200, body: cookie ? #"{"ok":true,"userCtx":{"name":"admin","roles":["_admin"]}}"# : #"{"ok":true,"userCtx":{"name":null,"roles":[]}}"#)
            case ("GET", "/fprint"):
                return cookie ? .init(status: 200, body: #"{"db_name":"fprint","update_seq":"0-x"}"#)
                    : .init(status: 401, body: #"{"error":"unauthorized","reason":"You are not authorized to access this db."}"#)
            case ("GET", "/fprint/_changes"):
                return .init(status: 200, body: #"{"results":[],"last_seq":"0-x","pending":0}"#)
            default:
                return .init(status: 404, body: #"{"error":"not_found","reason":"missing"}"#)
            }
        }
        defer { peer.stop() }
        let couchURL = "http://127.0.0.1:\(peer.port)/fprint"
        // An older fprint's single token file
        let configDir = runner.home.appendingPathComponent("config/fprint")
        try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
        try "LEGACY-TOKEN\n".write(to: configDir.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        let before = try await runner.run(["status", "--gateway", couchURL])
        #expect(before.stdout.contains("token from the credentials file (saved for any gateway)"), "\(before.stdout)")

        let badLogin = try await runner.run(["login", "--user", "admin", "--gateway", couchURL], stdin: "wrong\n")
        #expect(badLogin.status == 77 && badLogin.stderr.contains("Name or password is incorrect."), "\(badLogin.stderr)")
        let login = try await runner.run(["login", "--user", "admin", "--gateway", couchURL], stdin: "PASSWORD\n")
        #expect(login.status == 0, "\(login.stderr)")
        let credentialsPath = configDir.appendingPathComponent("credentials.json").path
        #expect(try FileManager.default.attributesOfItem(atPath: credentialsPath)[.posixPermissions] as? Int == 0o600)
        #expect(!FileManager.default.fileExists(atPath: configDir.appendingPathComponent("token").path))
        let file = try runner.json(String(contentsOfFile: credentialsPath, encoding: .utf8))
        let gateways = try #require(file["gateways"] as? [String: [String: Any]])
        #expect(gateways["*"]?["token"] as? String == "LEGACY-TOKEN")  // migrated, not lost
        #expect(gateways[couchURL]?["type"] as? String == "session")
        #expect(gateways[couchURL]?["cookie"] as? String == "COOKIE")

        let sync = try await runner.run(["sync", "--gateway", couchURL])
        #expect(sync.status == 0, "\(sync.stderr)")
        let afterLogin = peer.requests.drop { !($0.method == "POST" && $0.body == Data("name=admin&password=PASSWORD".utf8)) }.dropFirst()
        #expect(!afterLogin.isEmpty)
        #expect(afterLogin.allSatisfy { $0.header("Cookie") == "AuthSession=COOKIE" && $0.header("Authorization") == nil })

        // Each URL shows its own credential
        let statusCouch = try await runner.run(["status", "--gateway", couchURL])
        #expect(statusCouch.stdout.contains("CouchDB session of user admin from the credentials file"), "\(statusCouch.stdout)")
        let statusOther = try await runner.run(["status", "--gateway", "http://127.0.0.1:1/elsewhere"])
        #expect(statusOther.stdout.contains("saved for any gateway"), "\(statusOther.stdout)")

        // An expired cookie: the next sync logs in again first and stores the new one
        var edited = file
        var entries = gateways
        entries[couchURL]?["expiresAtMs"] = Int(Date().timeIntervalSince1970 * 1000) - 1000
        edited["gateways"] = entries
        try JSONSerialization.data(withJSONObject: edited).write(to: URL(fileURLWithPath: credentialsPath))
        let count = peer.requests.count
        let renewed = try await runner.run(["sync", "--gateway", couchURL])
        #expect(renewed.status == 0, "\(renewed.stderr)")
        let next = peer.requests.dropFirst(count)
        #expect(next.first?.method == "POST" && next.first?.path == "/_session", "\(next.map(\.path))")
        let stored = try runner.json(String(contentsOfFile: credentialsPath, encoding: .utf8))
        let expires = ((stored["gateways"] as? [String: [String: Any]])?[couchURL]?["expiresAtMs"] as? Int) ?? 0
        #expect(expires > Int(Date().timeIntervalSince1970 * 1000) + 500_000)
        #expect(try FileManager.default.attributesOfItem(atPath: credentialsPath)[.posixPermissions] as? Int == 0o600)

        for text in [login.stdout, login.stderr, sync.stdout, sync.stderr, statusCouch.stdout, statusOther.stdout, renewed.stderr] {
            #expect(!text.contains("PASSWORD") && !text.contains("COOKIE") && !text.contains("LEGACY-TOKEN"), "\(text)")
        }
    }

    /// The gateway serves the app config, scenarios and environments under
    /// `/config/`, and fprint fetches them with credentials: from the URL,
    /// or the one stored for the gateway's origin; `--simulate` then works.
    @Test func theServedConfigWorksForFprintItself() async throws {
        let s = try Setup(users: "carol:pa55word-Q\n")
        var served = s.runner
        served.environment["FPRINT_CONFIG"] = FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json").path
        let gateway = try await GatewayProcess(runner: served, db: s.gatewayDB, secret: s.secret, extra: ["--users", s.users])
        defer { gateway.kill9() }
        var runner = s.runner
        runner.environment["FPRINT_TOKEN"] = nil
        let base = "127.0.0.1:\(gateway.port)/config/app-config.json"

        // No credentials: the 401 is named
        let anonymous = try await runner.run(["scenarios", "--config", "http://\(base)"])
        #expect(anonymous.status == 65, "\(anonymous.stderr)")
        #expect(anonymous.stderr.contains("401"), "\(anonymous.stderr)")

        // user:password@ in the config URL: app config, scenarios and the environment all come
        let set = try await runner.run(["config", "set", "config-url", "http://carol:pa55word-Q@\(base)"])
        #expect(set.status == 0, "\(set.stderr)")
        let get = try await runner.run(["config", "get"])
        #expect(!get.stdout.contains("pa55word-Q"), "\(get.stdout)")
        let scenarios = try await runner.run(["scenarios", "--json"])
        #expect(scenarios.status == 0, "\(scenarios.stderr)")
        #expect(scenarios.stdout.contains("scenarioJ1NP1"))
        let walk = try await runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.lines.count > 10)

        // A stored login for the gateway's origin serves as well
        var other = try FprintRunner()
        other.environment["FPRINT_TOKEN"] = nil
        let login = try await other.run(["login", "--user", "carol", "--gateway", gateway.url], stdin: "pa55word-Q\n")
        #expect(login.status == 0, "\(login.stderr)")
        _ = try await other.run(["config", "set", "config-url", "http://\(base)"])
        let measured = try await other.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        #expect(measured.status == 0, "\(measured.stderr)")
        for text in [scenarios.stderr, walk.stderr, measured.stderr, login.stderr, gateway.stderrLog.text] {
            #expect(!text.contains("pa55word-Q"))
        }
    }

    /// Dry runs say "would send"; `list --json` reports real conflicts.
    @Test func dryRunWordsAndListConflicts() async throws {
        var runner = try FprintRunner()
        let secret = runner.home.appendingPathComponent("gw-secret").path
        let issued = try await runner.run(["gateway", "token", "--user", "alice", "--secret-file", secret])
        runner.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let gateway = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("g.sqlite").path, secret: secret)
        defer { gateway.kill9() }
        let measured = try await runner.run(["measure", "--map", "J1NP", "--x", "1", "--y", "2", "--simulate", "--fast", "--duration", "5"])
        let id = try #require(measured.lines.first)
        let dry = try await runner.run(["sync", "--gateway", gateway.url, "--dry-run", "--push-only"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("push: would send 1/1"), "\(dry.stderr)")
        #expect(!dry.stderr.contains("push: sent"))
        #expect(dry.stdout.contains("dry run: would send 1 of 1 changed"), "\(dry.stdout)")

        // Two edits of one revision on two replicas: a conflict
        _ = try await runner.run(["sync", "--gateway", gateway.url])
        var other = runner
        other.environment["FPRINT_DB"] = runner.home.appendingPathComponent("other.sqlite").path
        _ = try await other.run(["sync", "--gateway", gateway.url, "--pull-only"])
        for (path, note) in [(runner.db, "here"), (other.environment["FPRINT_DB"]!, "there")] {
            let store = try SQLiteDocumentStore(path: path)
            let doc = try #require(try store.document(id: id, includeDeleted: false))
            var body = doc.body
            body["note"] = .string(note)
            try store.update(id: id, body: body, expected: doc.rev)
        }
        _ = try await other.run(["sync", "--gateway", gateway.url])
        _ = try await runner.run(["sync", "--gateway", gateway.url])
        let list = try await runner.run(["list", "--json"])
        let entry = try runner.json(try #require(list.lines.first))
        #expect(entry["id"] as? String == id)
        #expect(entry["conflicts"] as? Int == 1, "\(list.stdout)")
    }
}

/// Ctrl-C during a sync that waits on a server: the transfer aborts at once
/// and the command exits 130, keeping what was done.
@Suite struct SyncInterruptTests {
    @Test func ctrlCStopsASyncWaitingOnASilentServer() async throws {
        let fp = try FprintRunner()
        let server = try await SilentServer()
        let gateway = "http://127.0.0.1:\(server.port)/fprint"

        let r = try await fp.run(["sync", "--gateway", gateway, "--token", "t.t.t"], interruptAfter: 1)
        // The signal ended the wait: a transfer that ran into libcurl's own
        // limit would end as unreachable (75), however long it took.
        #expect(r.status == 130, "\(r.stderr)")
        #expect(r.stderr.contains("interrupted"), "\(r.stderr)")
        await server.stop()
    }
}
