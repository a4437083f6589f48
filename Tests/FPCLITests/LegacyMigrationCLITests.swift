import FPCore
import FPStore
import Foundation
import Testing

/// The iOS app's documents as its old gateway holds them (the fixture's
/// `3-…` revision with its history), pulled by `fprint sync` from a real
/// `fprint gateway`: read as measurements where they are, then migrated as
/// children of the server's revision, so the next sync is an edit, not a
/// conflict.
@Suite(.serialized) struct LegacyMigrationCLITests {
    static let legacyID = "0B6F1D2E-6C1A-4C5E-9C63-2B1F6B0E8A11"
    static let serverRev = "3-9f8e7d6c5b4a39281706f5e4d3c2b1a0"

    /// The fixture's legacy documents as the old server's revisions: the
    /// first with its `3-…` history, the second at `1-…`.
    static func serverRevisions() throws -> [RevisionContent] {
        let url = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json")
        let dump = try CanonicalJSON.parse(try Data(contentsOf: url))
        var out: [RevisionContent] = []
        for row in dump["rows"]?.arrayValue ?? [] {
            guard case .object(var body)? = row["doc"], let id = row["id"]?.stringValue, !id.hasPrefix("_"),
                let rev = body["_rev"]?.stringValue.flatMap(Revision.init)
            else { continue }
            body["_id"] = nil
            body["_rev"] = nil
            let history = (1...rev.generation).reversed().map { n in
                n == rev.generation ? rev : Revision(generation: n, hash: String(repeating: String(n), count: 32))
            }
            out.append(RevisionContent(id: id, rev: rev, deleted: false, body: .object(body), history: history))
        }
        return out
    }

    struct Setup {
        var fp: FprintRunner
        let gateway: GatewayProcess
        let gatewayDB: String
    }

    /// A gateway holding the old server's documents, and a runner with a
    /// token of their owner (`surveyor1`), in Prague's time zone.
    static func setUp() async throws -> Setup {
        var fp = try FprintRunner()
        fp.environment["TZ"] = "Europe/Prague"
        let gatewayDB = fp.home.appendingPathComponent("gateway.sqlite").path
        let secret = fp.home.appendingPathComponent("gw-secret").path
        let issued = try await fp.run(["gateway", "token", "--user", "surveyor1", "--secret-file", secret])
        fp.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try SQLiteDocumentStore(path: gatewayDB).putReplicated(try serverRevisions(), markSynced: false)
        let gateway = try await GatewayProcess(runner: fp, db: gatewayDB, secret: secret)
        return Setup(fp: fp, gateway: gateway, gatewayDB: gatewayDB)
    }

    @Test func pulledLegacyDocumentsReadAsMeasurementsWithoutBeingRewritten() async throws {
        let s = try await Self.setUp()
        defer { s.gateway.kill9() }
        let fp = s.fp
        try await importDocuments(fp, EvalCLITests.caseB)
        let sync = try await fp.run(["sync", "--gateway", s.gateway.url, "--pull-only"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let pulled = try ForeignDocumentCLITests.bodies(fp.db)

        // list: placed and dated ("2017-05-12 14:33:21" in Prague = 12:33:21Z), marked legacy
        let list = try await fp.run(["list", "--json"])
        let entry = try #require(try list.lines.map { try fp.json($0) }.first { $0["id"] as? String == Self.legacyID })
        #expect(entry["x"] as? Double == 363 && entry["y"] as? Double == 701, "\(entry)")
        #expect(entry["createdAt"] as? String == "2017-05-12T12:33:21.000Z", "\(entry)")
        #expect(entry["mode"] as? String == "legacy")
        let found = try await fp.run(["list", "--since", "2017-05-12T12:33:00Z", "--map", "J1NP", "--json"])
        #expect(found.stdout.contains(Self.legacyID), "\(found.stdout)")
        let later = try await fp.run(["list", "--since", "2017-05-12T12:35:00Z", "--map", "J1NP", "--json"])
        #expect(!later.stdout.contains(Self.legacyID) && later.stdout.contains("5E2C7A90"), "\(later.stdout)")

        // show: the measurement, with one line saying it is legacy and stored unchanged
        let show = try await fp.run(["show", Self.legacyID])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stderr.contains("legacy Radio F-Prints document, read through the converter"), "\(show.stderr)")
        #expect(show.stdout.contains("20000 ms") && show.stdout.contains("J1NP"), "\(show.stdout)")

        // eval reads it with the measurements and says so; export csv carries it converted
        let eval = try await fp.run(["eval", "--map", "J1NP", "--set", "wifi", "--estimator", "nn", "--json"])
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(eval.stderr.contains("legacy Radio F-Prints documents on J1NP read through the converter"), "\(eval.stderr)")
        let csv = try await fp.run(["export", "csv", "--map", "J1NP"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.lines.contains { $0.hasPrefix(Self.legacyID + ",2017-05-12T12:33:21.000Z,") }, "\(csv.stdout)")

        // nothing was rewritten by reading
        #expect(try ForeignDocumentCLITests.bodies(fp.db) == pulled)
    }

    @Test func migrateWritesChildrenOfTheServersRevisionAndSyncIsAnEdit() async throws {
        let s = try await Self.setUp()
        defer { s.gateway.kill9() }
        let fp = s.fp
        let pull = try await fp.run(["sync", "--gateway", s.gateway.url, "--pull-only"])
        #expect(pull.status == 0, "\(pull.stderr)")
        let original = try #require(try SQLiteDocumentStore(path: fp.db).document(id: Self.legacyID, includeDeleted: false))

        // --dry-run: says what would change, stores nothing
        let before = try ForeignDocumentCLITests.bodies(fp.db)
        let dry = try await fp.run(["migrate", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains(Self.legacyID) && dry.stdout.contains(Self.serverRev), "\(dry.stdout)")
        #expect(dry.stderr.contains("would migrate 2 legacy documents"), "\(dry.stderr)")
        #expect(try ForeignDocumentCLITests.bodies(fp.db) == before)

        // Only one's own: the gateway takes edits of surveyor1's documents from surveyor1
        let migrate = try await fp.run(["migrate", "--owner", "surveyor1", "--json"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let step = try #require(try migrate.lines.map { try fp.json($0) }.first { $0["id"] as? String == Self.legacyID })
        #expect(step["from"] as? String == Self.serverRev)
        #expect((step["to"] as? String)?.hasPrefix("4-") == true, "\(step)")

        let store = try SQLiteDocumentStore(path: fp.db)
        let migrated = try #require(try store.document(id: Self.legacyID, includeDeleted: false))
        #expect(migrated.rev.description == step["to"] as? String)
        #expect(migrated.body["mode"]?.stringValue == "static" && migrated.body["x"]?.intValue == 363)
        #expect(migrated.body["createdAt"]?.stringValue == "2017-05-12T12:33:21.000Z")
        #expect(migrated.body["migrated"]?["by"]?.stringValue == "surveyor1")
        #expect(migrated.body["legacy"]?["body"] == original.body, "the whole old body is kept")
        // a second run finds nothing to do
        let again = try await fp.run(["migrate", "--owner", "surveyor1"])
        #expect(again.status == 0 && again.stderr.contains("no legacy documents to migrate"), "\(again.stderr)")

        // the next sync carries it to the old server as an edit: its winner, no conflict
        let push = try await fp.run(["sync", "--gateway", s.gateway.url])
        #expect(push.status == 0, "\(push.stderr)")
        let server = try SQLiteDocumentStore(path: s.gatewayDB)
        let served = try #require(try server.document(id: Self.legacyID, includeDeleted: false))
        #expect(served.rev == migrated.rev)
        #expect(try server.conflicts(id: Self.legacyID).isEmpty)
        #expect(try server.revisionHistory(id: Self.legacyID).contains(original.rev))
        let show = try await fp.run(["show", Self.legacyID])
        #expect(show.status == 0 && !show.stderr.contains("legacy"), "\(show.stderr)")
    }

    @Test func migrateResolvesTheConflictAnEarlierImportMade() async throws {
        let s = try await Self.setUp()
        defer { s.gateway.kill9() }
        let fp = s.fp
        // The migrating user's first way: import the dump, then sync with the old server.
        let fixture = LegacyTimesCLITests.fixture
        let imported = try await fp.run(["import", fixture])
        #expect(imported.status == 0, "\(imported.stderr)")
        let pull = try await fp.run(["sync", "--gateway", s.gateway.url, "--pull-only"])
        #expect(pull.status == 0, "\(pull.stderr)")
        let store = try SQLiteDocumentStore(path: fp.db)
        let winner = try #require(try store.document(id: Self.legacyID, includeDeleted: false))
        #expect(winner.rev.description == Self.serverRev)
        let copies = try store.conflicts(id: Self.legacyID)
        #expect(copies.count == 1, "the import's 1-… is a conflict of the server's 3-…")

        let migrate = try await fp.run(["migrate", "--owner", "surveyor1"])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stderr.contains("migrated 1 legacy document, 1 earlier imported copy deleted"), "\(migrate.stderr)")
        #expect(try store.conflicts(id: Self.legacyID).isEmpty)
        // The other document's import copy (unsigned on the server, signed here at push) is
        // refused as another user's; ours goes up as an edit.
        let push = try await fp.run(["sync", "--gateway", s.gateway.url])
        #expect(!push.stderr.contains(Self.legacyID), "\(push.stderr)")
        let server = try SQLiteDocumentStore(path: s.gatewayDB)
        #expect(try server.conflicts(id: Self.legacyID).isEmpty)
        #expect(try server.document(id: Self.legacyID, includeDeleted: false)?.body["mode"]?.stringValue == "static")
    }
}
