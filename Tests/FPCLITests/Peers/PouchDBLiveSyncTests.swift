import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// PouchDB 9.0.0 in live sync with `fprint gateway` (node, in memory):
/// PouchDB's documents (an inline attachment, a deletion) reach the gateway
/// as PouchDB wrote them, and what `fprint sync` brings into the gateway
/// meanwhile reaches PouchDB without a restart.
@Suite(.enabled(if: RealPeers.pouchDBRuns, RealPeers.pouchDBNote))
struct PouchDBLiveSyncTests {
    @Test func liveSyncMovesDocumentsBothWays() async throws {
        if let missing = RealPeers.pouchDBMissing { throw PeerError("\(missing) (FPRINT_REQUIRE_REAL=1: install nodejs)") }
        let fp = try FprintRunner()
        let secret = fp.home.appendingPathComponent("secret").path
        let issued = try await fp.run(["gateway", "token", "--user", "paula", "--secret-file", secret])
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let gateway = try await GatewayProcess(runner: fp, db: fp.home.appendingPathComponent("gw.sqlite").path, secret: secret)
        defer { gateway.kill9() }

        let node = Process()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCLITests/Fixtures/pouchdb-live-sync.js").path
        node.arguments = ["node", script, RealPeers.pouchDBLoader.path, gateway.url, token, "47"]
        let out = Pipe(), err = Pipe()
        node.standardOutput = out
        node.standardError = err
        node.standardInput = FileHandle.nullDevice
        let exit = try await node.startAwaitingExit()
        defer { if node.isRunning { kill(node.processIdentifier, SIGKILL) } }
        let printed = PipeDrain(out.fileHandleForReading, name: "pouchdb")
        let complaints = PipeDrain(err.fileHandleForReading, name: "pouchdb-err")
        func events() -> [[String: Any]] {
            String(decoding: printed.soFar, as: UTF8.self).split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
        // A bound only against hanging.
        #expect(await CouchDB.eventually { events().contains { $0["event"] as? String != nil } || !node.isRunning })
        let first = try #require(events().first, "PouchDB said nothing: \(String(decoding: complaints.soFar, as: UTF8.self))")
        #expect(first["event"] as? String == "pushed", "\(first)")

        // On the gateway: PouchDB's documents as it wrote them, the deletion, the attachment.
        let gatewayStore = try SQLiteDocumentStore(path: gateway.db)
        #expect(try gatewayStore.document(id: "pouch-2", includeDeleted: true)?.deleted == true)
        let written = try #require(try gatewayStore.document(id: "pouch-1", includeDeleted: false))
        let text = try #require(try gatewayStore.revisionText(id: "pouch-1", rev: written.rev))
        #expect(text.bodyText.hasPrefix(#"{"type":"scan","tenth":0.1,"zeta":{"z":1,"a":[3,2]},"alpha":"é","couchbase_sync_gateway_id":"paula","_attachments":{"note.txt":"#),
                "\(text.bodyText)")

        // fprint brings 47 documents into the gateway; live sync carries them to PouchDB.
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"]).status == 0)
        let sync = try await fp.run(["sync", "--gateway", gateway.url, "--token", token])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(await exit.value() == 0, "\(String(decoding: complaints.soFar, as: UTF8.self))")
        let done = try #require(events().last)
        #expect(done["event"] as? String == "done", "\(done)")
        let docs = try #require(done["docs"] as? [String: String])
        let onGateway = try documentSet(gateway.db).filter { !$0.value.hasSuffix("-deleted") }
        #expect(docs == onGateway)
        #expect(try documentSet(fp.db).filter { !$0.key.hasPrefix("pouch-") } == onGateway.filter { !$0.key.hasPrefix("pouch-") })
        #expect(done["attachment"] as? String == done["note"] as? String)
        // fprint pulled PouchDB's documents too, attachment and all.
        let export = fp.home.appendingPathComponent("att")
        #expect(try await fp.run(["export", "attachments", "--output", export.path]).status == 0)
        let note = try Data(contentsOf: export.appendingPathComponent("pouch-1/note.txt"))
        #expect(note.base64EncodedString() == done["note"] as? String)
    }
}
