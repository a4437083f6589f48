import FPCore
import FPHex
import Foundation
import GRDB
import Testing

@testable import FPStore

/// Overwrites 512 bytes in the middle of `id`'s stored frame on disk.
func damageBody(of id: String, in path: String) throws {
    let store = try SQLiteDocumentStore(path: path)
    let hex = try #require(try store.rawSQL("SELECT hex(body) FROM revisions WHERE doc_id = '\(id)' AND body IS NOT NULL").first?[0] ?? nil)
    try store.close()
    // Bytes of this body found nowhere else in the file: walk documents share
    // long runs, so a 48-byte probe from the middle was once also in a
    // neighbour's frame, found first, and the 512 bytes went there. VACUUM
    // first: a body replaced since (a sync signs first revisions) may still
    // lie on a free page.
    try DatabaseQueue(path: path).vacuum()
    let frame = try #require(Hex.bytes(hex))
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    let starts = stride(from: frame.count / 2, to: max(frame.count / 2 + 1, frame.count - 512), by: 64)
    let at = try #require(starts.lazy.compactMap { start -> Int? in
        let probe = Data(frame[start..<min(frame.count, start + 48)])
        guard let first = file.range(of: probe), file.range(of: probe, in: first.upperBound..<file.count) == nil else { return nil }
        return first.lowerBound
    }.first, "no bytes of \(id)'s frame are unique in the file")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seek(toOffset: UInt64(at))
    try handle.write(contentsOf: Data(repeating: 0x5A, count: 512))
    try handle.close()
}

/// The binary on damaged, read-only, missing and odd databases (issue 17).
@Suite(.serialized) struct StoreSafetyCLITests {
    /// A walk of 47 documents with the 10th damaged; returns its id and every id.
    func damagedWalk(_ fp: FprintRunner) async throws -> (damaged: String, all: [String]) {
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "3"])
        #expect(walk.status == 0, "\(walk.stderr)")
        #expect(walk.lines.count == 47)
        try damageBody(of: walk.lines[9], in: fp.db)
        return (walk.lines[9], walk.lines)
    }

    @Test func exportAndEvalCarryEveryIntactDocument() async throws {
        let fp = try FprintRunner()
        let (bad, all) = try await damagedWalk(fp)
        let e = try await fp.run(["export", "jsonl"])
        #expect(e.status == 74)
        #expect(e.lines.count == 46)
        let exported = Set(try e.lines.map { try #require(fp.json($0)["_id"] as? String) })
        #expect(exported == Set(all).subtracting([bad]))
        #expect(e.stderr.contains("warning: skipped \(bad)"))
        #expect(e.stderr.contains("1 damaged document left out (\(bad))"))

        let ev = try await fp.run(["eval", "--json"])
        #expect(ev.status == 74, "\(ev.stderr)")
        let report = try fp.json(ev.stdout)
        #expect(report["measurements"] as? Int == 46, "\(ev.stdout.prefix(300))")
        #expect(ev.stderr.contains(bad))

        let check = try await fp.run(["check"])
        #expect(check.status == 74)
        #expect(check.lines.count == 1 && check.stdout.contains("damaged: \(bad)"))
        #expect(check.stderr.contains("47 documents"))
    }

    @Test func syncPushesEveryIntactDocumentAndKeepsTheDamagedOnePending() async throws {
        var fp = try FprintRunner()
        let (gateway, gatewayDB) = try await startGatewayForAlice(&fp)
        defer { gateway.kill9() }
        let (bad, all) = try await damagedWalk(fp)

        for _ in 0..<2 {  // the second sync offers it again and still refuses to pretend
            let sync = try await fp.run(["sync", "--gateway", gateway.url, "--push-only"])
            #expect(sync.status == 74, "\(sync.stderr)")
            #expect(sync.stderr.contains("skipped \(bad)"))
            #expect(Set(try documentSet(gatewayDB).keys) == Set(all).subtracting([bad]))
        }
        let pending = try await fp.run(["list", "--unsynced", "--json"])
        #expect(pending.lines.count == 1 && pending.stdout.contains(bad))

        // Repair cannot fetch what the gateway never had: quarantined; then sync is clean.
        let repair = try await fp.run(["repair", "--gateway", gateway.url])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.contains("quarantined: \(bad)"))
        #expect(try await fp.run(["check"]).status == 0)
        let again = try await fp.run(["sync", "--gateway", gateway.url])
        #expect(again.status == 0, "\(again.stderr)")
    }

    @Test func repairFetchesADamagedRevisionTheGatewayHas() async throws {
        var fp = try FprintRunner()
        let (gateway, _) = try await startGatewayForAlice(&fp)
        defer { gateway.kill9() }
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "4"])
        #expect(walk.status == 0)
        #expect(try await fp.run(["sync", "--gateway", gateway.url]).status == 0)
        let intact = try await fp.run(["export", "jsonl"]).stdout
        try damageBody(of: walk.lines[20], in: fp.db)
        #expect(try await fp.run(["export", "jsonl"]).status == 74)

        let repair = try await fp.run(["repair", "--gateway", gateway.url])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stdout.contains("restored from the gateway: \(walk.lines[20])"))
        let after = try await fp.run(["export", "jsonl"])
        #expect(after.status == 0)
        #expect(after.stdout == intact)
    }

    @Test func readCommandsNeverCreateADatabase() async throws {
        var fp = try FprintRunner()
        let typo = fp.home.appendingPathComponent("typo.sqlite").path
        for args in [["list"], ["show", "abc"], ["export", "jsonl"], ["eval"], ["status"], ["check"]] {
            let r = try await fp.run(args + ["--db", typo])
            #expect(r.status == 66, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("no database at \(typo)"), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: typo))
        // A write command with --db in a folder that does not exist: refused, nothing made.
        let deep = fp.home.appendingPathComponent("nope/db.sqlite").path
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5", "--db", deep])
        // The path once, where it came from, and what is missing.
        #expect(m.stderr == "error: \(deep) (--db): its folder \(fp.home.appendingPathComponent("nope").path) does not exist: "
                + "create it first, or check the path\n", "\(m.stderr)")
        #expect(m.status == 74)
        #expect(!FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("nope").path))
        // The default XDG location is made by the first write.
        fp.environment["FPRINT_DB"] = nil
        #expect(try await fp.run(["list"]).status == 66)
        let first = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("data/fprint/fprint.sqlite").path))
    }

    @Test func aReadOnlyFileIsReadAndANewerOneRefused() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"]).status == 0)
        chmod(fp.db, 0o444)
        let list = try await fp.run(["list", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.lines.count == 1)
        #expect(try await fp.run(["export", "jsonl"]).status == 0)
        chmod(fp.db, 0o644)

        let store = try SQLiteDocumentStore(path: fp.db)
        _ = try store.rawSQL("PRAGMA user_version = 99")
        try store.close()
        for args in [["list"], ["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"]] {
            let r = try await fp.run(args)
            #expect(r.status == 74)
            #expect(r.stderr.contains("format 99") && r.stderr.contains("up to 9"), "\(r.stderr)")
        }
    }

    @Test func aMeasurementThatCannotBeStoredGoesToARescueFile() async throws {
        let fp = try FprintRunner()
        #expect(try await storeThatFillsUp(fp))
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "5"])
        #expect(walk.status == 74)
        let match = try #require(walk.stderr.firstMatch(of: /saved in (\S+\.jsonl)\. Bring them back with: (fprint import .+)/))
        let rescue = String(match.1)
        #expect(rescue.hasPrefix(fp.home.appendingPathComponent("data/fprint").path))
        let mode = try FileManager.default.attributesOfItem(atPath: rescue)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: rescue, encoding: .utf8).split(separator: "\n").count == 47)

        let fixed = try SQLiteDocumentStore(path: fp.db)
        _ = try fixed.rawSQL("DROP TRIGGER full")
        try fixed.close()
        let line = String(match.2).split(separator: " ").map(String.init)
        let imported = try await fp.run(Array(line.dropFirst()))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await fp.run(["list", "--json"]).lines.count == 48)
    }

    @Test func aReplayedMeasurementThatCannotBeStoredGoesToARescueFileWhole() async throws {
        // `measure` without --json stores the document as canonical text: its rescue is that text with `_id`
        let fp = try FprintRunner()
        let capture = FprintRunner.repositoryRoot
            .appendingPathComponent("Tests/FPHCITests/Fixtures/captures/csacca__horizon-74-at-ble-adv.btsnoop").path
        #expect(try await storeThatFillsUp(fp))
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--fast", "--duration", "all",
                                  "--ble-source", "btsnoop:" + capture])
        #expect(m.status == 74)
        let match = try #require(m.stderr.firstMatch(of: /its 1 document is saved in (\S+\.jsonl)\. Bring them back with: (fprint import .+)/),
                                 "\(m.stderr)")
        let lines = try String(contentsOfFile: String(match.1), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(#"{"_id":""#))

        let fixed = try SQLiteDocumentStore(path: fp.db)
        _ = try fixed.rawSQL("DROP TRIGGER full")
        try fixed.close()
        let imported = try await fp.run(Array(String(match.2).split(separator: " ").map(String.init).dropFirst()))
        #expect(imported.status == 0, "\(imported.stderr)")
        let listed = try await fp.run(["list", "--json"])
        let counts = try listed.lines.map { try fp.json($0)["bleCount"] as? Int }
        #expect(counts.sorted { ($0 ?? 0) < ($1 ?? 0) }.last == 412)  // every report of the capture came back
    }

    @Test func withoutSharedMemoryOneWarningAndEverythingWorks() async throws {
        let fp = try FprintRunner()
        // A folder where `-shm` goes: SQLite cannot map it, as on a 9p share.
        try FileManager.default.createDirectory(atPath: fp.db + "-shm", withIntermediateDirectories: false)
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"])
        #expect(m.status == 0, "\(m.stderr)")
        let warnings = m.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1 && warnings[0].contains("rollback journal"), "\(m.stderr)")
        let list = try await fp.run(["list", "--json"])
        #expect(list.status == 0 && list.lines.count == 1)
    }
}

/// A gateway child process, with alice's token in the runner's environment.
private func startGatewayForAlice(_ fp: inout FprintRunner) async throws -> (GatewayProcess, String) {
    let gatewayDB = fp.home.appendingPathComponent("gateway.sqlite").path
    let secret = fp.home.appendingPathComponent("gw-secret").path
    let token = try await fp.run(["gateway", "token", "--user", "alice", "--secret-file", secret])
    fp.environment["FPRINT_TOKEN"] = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    return (try await GatewayProcess(runner: fp, db: gatewayDB, secret: secret), gatewayDB)
}
