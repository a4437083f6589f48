import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// Who signs what, against `fprint gateway` (its users may push only
/// documents signed with their own id): a refused push re-owns nothing, and
/// documents imported without an owner are signed at their first push.
@Suite struct SigningCLITests {
    struct Setup {
        var runner: FprintRunner
        var gateway: GatewayProcess
        var tokens: [String: String]
    }

    func setup() async throws -> Setup {
        let runner = try FprintRunner()
        let secret = runner.home.appendingPathComponent("gw-secret").path
        var tokens: [String: String] = [:]
        for (user, role) in [("alice", "user"), ("bob", "user"), ("victor", "viewer")] {
            let issued = try await runner.run(["gateway", "token", "--user", user, "--role", role, "--secret-file", secret])
            #expect(issued.status == 0, "\(issued.stderr)")
            tokens[user] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let gateway = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("gw.sqlite").path,
                                               secret: secret)
        return Setup(runner: runner, gateway: gateway, tokens: tokens)
    }

    func sync(_ s: Setup, as user: String) async throws -> FprintRunner.Result {
        try await s.runner.run(["sync", "--gateway", s.gateway.url, "--token", s.tokens[user]!])
    }

    /// Issue 27's sequence: alice syncs; one more measurement; a viewer's
    /// sync is refused (77, naming the document) and leaves it unsigned;
    /// bob's sync then signs and sends it (0), and later syncs are clean.
    @Test func aRefusedPushReOwnsNothing() async throws {
        let s = try await setup()
        defer { s.gateway.kill9() }
        #expect(try await s.runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"]).status == 0)
        #expect(try await sync(s, as: "alice").status == 0)
        let id = try await s.runner.measureOne()

        let viewer = try await sync(s, as: "victor")
        #expect(viewer.status == 77, "\(viewer.stderr)")
        #expect(viewer.stderr.contains(id), "\(viewer.stderr)")
        let store = try SQLiteDocumentStore(path: s.runner.db)
        #expect(try store.document(id: id, includeDeleted: false)?.body[MeasurementDocument.ownerKey] == "-")

        let bob = try await sync(s, as: "bob")
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(bob.stdout.contains("sent 1 of") && bob.stdout.contains("signed 1 as bob"), "\(bob.stdout)")
        #expect(try SQLiteDocumentStore(path: s.runner.db).document(id: id, includeDeleted: false)?
            .body[MeasurementDocument.ownerKey] == "bob")
        #expect(try documentSet(s.runner.db) == documentSet(s.gateway.db))
        for user in ["bob", "alice"] {
            let again = try await sync(s, as: user)
            #expect(again.status == 0, "\(again.stderr)")
        }
    }

    /// A second user's first sync from a store that is up to date: nothing
    /// to push, the remote has no checkpoint of theirs yet. It completes
    /// (the pull once took a `.null` page for the early one and exited 76).
    @Test func anotherUsersFirstSyncOfAnUpToDateStoreCompletes() async throws {
        let s = try await setup()
        defer { s.gateway.kill9() }
        #expect(try await s.runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"]).status == 0)
        #expect(try await sync(s, as: "alice").status == 0)
        let bob = try await sync(s, as: "bob")
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(bob.stdout.contains("sent 0 of 47 changed, received 0 of 47 changed (47 already here)"), "\(bob.stdout)")
    }

    /// A viewer's push is refused as a whole (403 on `_bulk_docs`): 77, the
    /// error names the documents it carried, and nothing is signed.
    @Test func aViewersRefusalNamesTheDocumentsAndSignsNothing() async throws {
        let s = try await setup()
        defer { s.gateway.kill9() }
        let id = try await s.runner.measureOne()
        let rev = try #require(try SQLiteDocumentStore(path: s.runner.db).document(id: id, includeDeleted: false)?.rev)
        let viewer = try await sync(s, as: "victor")
        #expect(viewer.status == 77, "\(viewer.stderr)")
        #expect(viewer.stderr.contains("error: ") && viewer.stderr.contains(id), "\(viewer.stderr)")
        let after = try #require(try SQLiteDocumentStore(path: s.runner.db).document(id: id, includeDeleted: false))
        #expect(after.rev == rev && after.body[MeasurementDocument.ownerKey] == "-")
    }

    /// An Android dump's documents carry no owner: a user's sync signs and
    /// sends all of them (the gateway refused every one before).
    @Test func importedDocumentsWithoutAnOwnerAreSignedAtTheirFirstPush() async throws {
        let s = try await setup()
        defer { s.gateway.kill9() }
        let dump = s.runner.home.appendingPathComponent("android.jsonl")
        let lines = (1...60).map { n in
            #"{"_id":"and-\#(n)","type":"scan","deviceId":"a1b2","createdAt":"2017-05-12T14:34:\#(n % 50 + 10)+02:00","x":\#(n),"y":1863,"level":"J1NP","bleScans":[],"wifiScans":[],"cellScans":[]}"#
        }
        try lines.joined(separator: "\n").write(to: dump, atomically: true, encoding: .utf8)
        #expect(try await s.runner.run(["import", dump.path]).status == 0)
        let sync = try await sync(s, as: "alice")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("sent 60 of 60 changed, signed 60 as alice"), "\(sync.stdout)")
        let gateway = try SQLiteDocumentStore(path: s.gateway.db)
        #expect(try gateway.count() == 60)
        #expect(try gateway.document(id: "and-7", includeDeleted: false)?.body[MeasurementDocument.ownerKey] == "alice")
        #expect(try documentSet(s.runner.db) == documentSet(s.gateway.db))
    }
}

extension FprintRunner {
    /// One simulated measurement of 5 s (virtual clock) on J1NP; its document id.
    func measureOne(x: Int = 5, y: Int = 5) async throws -> String {
        let m = try await run(["measure", "--map", "J1NP", "--x", String(x), "--y", String(y), "--duration", "5",
                               "--simulate", "--fast", "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let line = try #require(m.lines.first)
        return try #require(try json(line)["_id"] as? String)
    }
}
