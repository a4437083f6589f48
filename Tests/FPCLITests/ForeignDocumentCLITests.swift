import FPCore
import FPStore
import Foundation
import Testing

/// Documents that are not measurements (the iOS app's legacy ones, another
/// application's, a malformed one) reach the store the way a sync brings
/// them: held by a real `fprint gateway` and pulled. Every reading command
/// shows or skips them; none fails because of them, and none changes them.
@Suite(.serialized) struct ForeignDocumentCLITests {
    /// The legacy fixture's documents and two more.
    static func foreignDocuments() throws -> [NewDocument] {
        let url = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json")
        let dump = try CanonicalJSON.parse(try Data(contentsOf: url))
        var docs: [NewDocument] = []
        for row in dump["rows"]?.arrayValue ?? [] {
            // The design document is left out: a store takes no `_` id from a local write.
            guard case .object(var body)? = row["doc"], let id = row["id"]?.stringValue, !id.hasPrefix("_") else { continue }
            body["_id"] = nil
            body["_rev"] = nil
            docs.append(NewDocument(id: id, body: .object(body)))
        }
        docs.append(NewDocument(id: "todo-1", body: ["type": "todo", "title": "milk", "level": "J1NP"]))
        docs.append(NewDocument(id: "broken-1", body: ["mode": "static", "level": "J1NP", "x": "left", "y": [1]]))
        return docs
    }

    /// Every stored document's revision and canonical body.
    static func bodies(_ path: String) throws -> [String: String] {
        let store = try SQLiteDocumentStore(path: path)
        var out: [String: String] = [:]
        for d in try store.changes(since: 0, limit: Int.max) where !d.deleted {
            out[d.id] = d.rev.description + " " + CanonicalJSON.string(d.body)
        }
        return out
    }

    @Test func pulledForeignDocumentsAreShownAndSkippedNeverFatal() async throws {
        var fp = try FprintRunner()
        let gatewayDB = fp.home.appendingPathComponent("gateway.sqlite").path
        let secret = fp.home.appendingPathComponent("gw-secret").path
        let issued = try await fp.run(["gateway", "token", "--user", "alice", "--secret-file", secret])
        fp.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let foreign = try Self.foreignDocuments()
        try SQLiteDocumentStore(path: gatewayDB).insert(foreign)
        try await importDocuments(fp, EvalCLITests.caseB)

        let gateway = try await GatewayProcess(runner: fp, db: gatewayDB, secret: secret)
        defer { gateway.kill9() }
        let sync = try await fp.run(["sync", "--gateway", gateway.url, "--pull-only"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let pulled = try Self.bodies(fp.db)
        let served = try Self.bodies(gatewayDB)
        let legacyID = "0B6F1D2E-6C1A-4C5E-9C63-2B1F6B0E8A11"
        for id in [legacyID, "todo-1", "broken-1"] {
            #expect(pulled[id] != nil && pulled[id] == served[id], "\(id)")
        }

        // list marks them; --json says why; --foreign lists only them
        let list = try await fp.run(["list"])
        #expect(list.status == 0, "\(list.stderr)")
        let legacyRow = try #require(list.lines.first { $0.hasPrefix("0B6F1D2E") })
        #expect(legacyRow.contains("legacy"), "\(list.stdout)")
        #expect(list.lines.first { $0.hasPrefix("todo-1") }?.contains("foreign") == true, "\(list.stdout)")
        let json = try await fp.run(["list", "--json"])
        #expect(json.status == 0)
        let entries = try json.lines.map { try fp.json($0) }
        let legacyEntry = try #require(entries.first { $0["id"] as? String == legacyID })
        #expect(legacyEntry["mode"] as? String == "legacy")
        #expect((legacyEntry["notMeasurement"] as? String)?.contains("legacy Radio F-Prints document, read through the converter") == true)
        #expect(entries.first { $0["id"] as? String == "z0" }?["notMeasurement"] == nil)
        let only = try await fp.run(["list", "--foreign", "--json"])
        let onlyIDs = Set(try only.lines.map { try fp.json($0)["id"] as? String ?? "" })
        #expect(onlyIDs.contains(legacyID) && onlyIDs.contains("todo-1"), "\(only.stdout)")
        #expect(!onlyIDs.contains("z0") && !onlyIDs.contains("x2"))

        // show prints them raw, with why, exit 0 (a legacy one is read through the converter: LegacyMigrationCLITests)
        for (id, why) in [("todo-1", "another application"), ("broken-1", "contract")] {
            let show = try await fp.run(["show", id])
            #expect(show.status == 0, "\(id): \(show.stderr)")
            #expect(show.stderr.contains("is not read as a measurement") && show.stderr.contains(why), "\(show.stderr)")
            let raw = try fp.json(show.stdout)
            #expect(raw["_id"] as? String == id)
        }

        // eval, export and coverage carry on with the measurements and count the rest
        let eval = try await fp.run(["eval", "--map", "J1NP", "--set", "wifi", "--estimator", "nn", "--json"])
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(eval.stderr.contains("documents on J1NP are not measurements: skipped; `fprint list --foreign`"),
                "\(eval.stderr)")
        #expect(!eval.stdout.isEmpty)
        let csv = try await fp.run(["export", "csv", "--map", "J1NP"])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stderr.contains("1 document on J1NP is not a measurement: skipped"), "\(csv.stderr)")
        #expect(csv.stdout.contains(legacyID) && !csv.stdout.contains("todo-1") && csv.stdout.contains("z0"))
        let backup = try await fp.run(["export", "jsonl"])
        #expect(backup.status == 0 && backup.stdout.contains(legacyID), "\(backup.stderr)")
        let coverage = try await fp.run(["coverage", "--map", "J1NP"])
        #expect(coverage.status == 0, "\(coverage.stderr)")
        #expect(coverage.stderr.contains("not measurements: skipped"), "\(coverage.stderr)")

        let svg = fp.home.appendingPathComponent("heat.svg").path
        let heat = try await fp.run(["plot", "heatmap", "--map", "J1NP", "--transmitter", "02:00:00:00:00:0A", "-o", svg])
        #expect(heat.status == 0, "\(heat.stderr)")
        #expect(heat.stderr.contains("not measurements: skipped"), "\(heat.stderr)")

        // Nothing was changed by reading, and nothing is sent back changed
        #expect(try Self.bodies(fp.db) == pulled)
        let again = try await fp.run(["sync", "--gateway", gateway.url])
        #expect(again.status == 0, "\(again.stderr)")
        let after = try Self.bodies(gatewayDB)
        for id in [legacyID, "todo-1", "broken-1"] { #expect(after[id] == served[id], "\(id)") }
    }
}
