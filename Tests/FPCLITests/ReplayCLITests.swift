import Foundation
import Testing

/// btsnoop replays through `measure` and `walk`: the whole capture with
/// `--duration all`, and never a silent cut (issue 12, "Replays").
@Suite("BLE replays through measure and walk")
struct ReplayCLITests {
    static let pongbot = BLECLITests.capture("whoisbe__pongbot-mcp-adv")  // 460 reports over 5,999 s

    static func ble(_ doc: [String: Any]) throws -> [String: Any] {
        try #require((doc["providers"] as? [String: Any])?["ble"] as? [String: Any])
    }

    @Test func aReplayCutByDurationWarnsOnceAndTheDocumentSaysSo() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "20", "--fast",
                                  "--ble-source", "btsnoop:" + Self.pongbot, "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let doc = try fp.json(try #require(m.lines.first))
        #expect((doc["bleScans"] as? [Any])?.count == 81)
        let cut = "replayed 81 of the capture's 460 advertising reports: the measurement ended before the report at 514.3 s (the capture runs 5999.0 s)"
        #expect(try Self.ble(doc)["reason"] as? String == cut)
        let warnings = m.stderr.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings == ["warning: \(Self.pongbot): \(cut); --duration all replays the whole capture"])
    }

    @Test func durationAllReplaysEveryReportFromTheFilesFirstRecord() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "all", "--fast",
                                  "--ble-source", "btsnoop:" + Self.pongbot, "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(!m.stderr.contains("warning:"), "\(m.stderr)")
        let doc = try fp.json(try #require(m.lines.first))
        let scans = try #require(doc["bleScans"] as? [[String: Any]])
        #expect(scans.count == 460)  // what tshark decodes from the file (its golden has 460 lines)
        #expect(doc["durationMs"] as? Int == 5_999_031)  // first record to last, past the 120 s a number allows
        #expect(scans.first?["time"] as? Int == 0)  // this capture's first record is a report
        let ble = try Self.ble(doc)
        #expect(ble["reason"] == nil)
        #expect(ble["adErrors"] as? Int == 0)
        #expect(ble["malformed"] as? Int == 0)
        // Piped progress of a fast replay: a few lines, not one per replayed second
        #expect(m.stderr.split(separator: "\n").filter { $0.hasPrefix("measure J1NP") }.count < 30)
    }

    @Test(arguments: [
        (["--duration", "all", "--simulate"],
         "Error: --duration all is the length of a btsnoop capture: it needs --ble-source btsnoop:FILE"),
        (["--duration", "all", "--every", "1m", "--ble-source", "btsnoop:x.btsnoop"],
         "Error: --duration all replays one capture once: it cannot be combined with --every"),
        (["--duration", "121", "--simulate"],
         "Error: --duration must be 5–120 seconds (or all, with --ble-source btsnoop:FILE), got 121"),
        (["--duration", "some", "--simulate"],
         "Error: The value 'some' is invalid for '--duration <seconds|all>'"),
    ])
    func durationAllNeedsACapture(extra: [String], message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1"] + extra)
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fp.db))
    }

    @Test func durationAllWithBLETurnedOffIsRefusedBeforeAnythingRuns() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "all", "--fast", "--no-ble",
                                  "--ble-source", "btsnoop:" + Self.pongbot])
        #expect(r.status == 64)
        #expect(r.stderr == "error: --duration all replays a btsnoop capture: BLE must be on (drop --no-ble)\n")
    }

    @Test func aWalkShorterThanItsCaptureWarns() async throws {
        let fp = try FprintRunner()
        let w = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--fast", "--ble-source", "btsnoop:" + Self.pongbot])
        #expect(w.status == 0, "\(w.stderr)")
        let warnings = w.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: \(Self.pongbot): replayed ") }
        #expect(warnings.count == 1, "\(w.stderr)")
        #expect(warnings.first?.hasSuffix("; a walk lasts as long as its route") == true)
    }
}
