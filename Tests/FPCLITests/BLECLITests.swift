import FPStore
import Foundation
import Testing

@Suite("BLE commands and sources")
struct BLECLITests {
    static func capture(_ name: String) -> String {
        FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPHCITests/Fixtures/captures/\(name).btsnoop").path
    }

    /// The replayed btmon capture of the VM: the iBeacon lands in bleScans[], labelled as a replay.
    @Test func measureFromBtsnoopStoresTheIBeacon() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--duration", "5", "--fast",
                            "--ble-source", "btsnoop:" + Self.capture("btvirt-vm-monitor"), "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let doc = try fp.json(try #require(m.lines.first))
        let scans = try #require(doc["bleScans"] as? [[String: Any]])
        #expect(scans.count == 1)
        #expect(scans.first?["address"] as? String == "00:AA:01:01:00:01")
        #expect(scans.first?["rssi"] == nil)  // 127 = not available: no value, never ±127
        let beacon = try #require(scans.first?["beacon"] as? [String: Any])
        #expect(beacon["uuid"] as? String == "FB0B57A2-8228-44CD-913A-94A122BA1206")
        #expect(beacon["major"] as? Int == 1)
        #expect(beacon["minor"] as? Int == 53)
        #expect(beacon["measuredPower"] as? Int == -66)
        let ble = try #require((doc["providers"] as? [String: Any])?["ble"] as? [String: Any])
        #expect(ble["replay"] as? Bool == true)
        #expect((ble["source"] as? String)?.hasPrefix("btsnoop:") == true)
        #expect(ble["status"] as? String == "ok")
    }

    @Test func replayedCaptureGivesOneEntryPerReport() async throws {
        let fp = try FprintRunner()
        // 412 reports over ~16 s of capture; a 20 s fast replay holds them all.
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "20", "--fast",
                            "--ble-source", "btsnoop:" + Self.capture("csacca__horizon-74-at-ble-adv"), "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let doc = try fp.json(try #require(m.lines.first))
        let scans = try #require(doc["bleScans"] as? [[String: Any]])
        #expect(scans.count == 412)
        #expect(scans.allSatisfy { ($0["rssi"] as? Int).map { $0 < 0 } ?? true })
    }

    /// This machine's kernel has no Bluetooth: each BLE entry point says so in one line, exit 80.
    @Test(arguments: [["adapters"], ["scan", "--duration", "1"],
                      ["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "5", "--ble-source", "hci:hci0"]])
    func noBluetoothInTheKernel(args: [String]) async throws {
        guard socket(31, Int32(SOCK_RAW.rawValue), 1) < 0, errno == EAFNOSUPPORT else {
            // A kernel with Bluetooth: this path cannot be shown here (the VM test covers the real one).
            return
        }
        let fp = try FprintRunner()
        let r = try await fp.run(args)
        #expect(r.status == 80)
        #expect(r.stderr == "error: this kernel has no Bluetooth sockets (AF_BLUETOOTH: EAFNOSUPPORT): load the bluetooth module (modprobe bluetooth) or run on a machine whose kernel has Bluetooth\n")
        #expect(r.stdout.isEmpty)
    }

    @Test func badCaptureIsOneLineDataError() async throws {
        let fp = try FprintRunner()
        let bad = fp.home.appendingPathComponent("bad.btsnoop")
        try Data(Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA, 0, 0]).write(to: bad)  // a record cut after 2 bytes
        let r = try await fp.run(["scan", "--ble-source", "btsnoop:" + bad.path, "--fast"])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("error: \(bad.path): not a usable btsnoop capture: record original length truncated"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func aCaptureCutMidRecordReplaysItsIntactRecordsWithOneWarning() async throws {
        let fp = try FprintRunner()
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.capture("whoisbe__pongbot-mcp-adv")))
        let cut = fp.home.appendingPathComponent("cut.btsnoop")
        try whole.dropLast(5).write(to: cut)
        let r = try await fp.run(["scan", "--ble-source", "btsnoop:" + cut.path, "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: \(cut.path): the last record is cut short") }
        #expect(warnings.count == 1, "\(r.stderr)")
        #expect(!r.lines.isEmpty)
    }

    @Test func scanPipedPrintsJSONLinesPerTransmitter() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["scan", "--ble-source", "btsnoop:" + Self.capture("whoisbe__pongbot-mcp-adv"), "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map { try fp.json($0) }
        #expect(!rows.isEmpty)
        // The closing snapshot lists every transmitter once; its counts add up to every report.
        var last: [String: Int] = [:]
        for row in rows { last[row["address"] as? String ?? ""] = row["count"] as? Int }
        #expect(last.count == 28)
        #expect(last.values.reduce(0, +) == 460)
    }

    /// Ctrl-C ends a piped scan the usual way: exit 0, and the closing
    /// summary (every transmitter heard so far) still comes.
    @Test func aPipedScanStoppedByCtrlCPrintsItsSummary() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["scan", "--ble-source", "btsnoop:" + Self.capture("csacca__horizon-74-at-ble-adv")],
                                 interruptWhen: { $0.contains("\n") })  // after the first second's lines
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map { try fp.json($0) }
        let heard = Set(rows.compactMap { $0["address"] as? String })
        // The summary is the last lines: each transmitter once.
        let summary = rows.suffix(heard.count).compactMap { $0["address"] as? String }
        #expect(!heard.isEmpty && Set(summary) == heard && summary.count == heard.count)
        #expect(rows.count > heard.count)
    }

    /// Every second, a line for each transmitter heard in that second (not
    /// only in its last 100 ms), then the closing summary. The reports' times
    /// come from the same capture stored by measure (12.9 s long).
    @Test func scanPipedPrintsEveryTransmitterHeardEachSecond() async throws {
        let fp = try FprintRunner()
        let capture = "btsnoop:" + Self.capture("csacca__horizon-74-at-ble-adv")
        let scan = try await fp.run(["scan", "--ble-source", capture, "--fast"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--fast", "--duration", "120",
                                  "--no-wifi", "--no-cell", "--no-location", "--json", "--ble-source", capture])
        #expect(m.status == 0, "\(m.stderr)")
        let reports = try #require(try fp.json(m.stdout)["bleScans"] as? [[String: Any]])
        #expect(reports.count == 412)
        var due = Set<String>(), transmitters = Set<String>()
        for report in reports {
            let time = report["time"] as? Int ?? 0, address = report["address"] as? String ?? ""
            due.insert("\(max(0, time - 1) / 1000) \(address)")  // printed at the next whole second
            transmitters.insert(address)
        }
        #expect(scan.lines.count == due.count + transmitters.count,
                "\(scan.lines.count) lines for \(due.count) second-transmitter pairs and \(transmitters.count) in the summary")
    }

    @Test func badSourcesAreUsageErrors() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["scan", "--ble-source", "usb:0"]).status == 64)
        #expect(try await fp.run(["scan", "--ble-source", "sim"]).status == 64)
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--fast"]).status == 64)
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--exclusive", "--ble-source", "sim"]).status == 64)
    }

    /// `scan --reports`: one JSON line per report, the same entries a document stores.
    @Test func scanReportsPrintsEveryReportAsTheDocumentStoresIt() async throws {
        let fp = try FprintRunner()
        let capture = Self.capture("whoisbe__pongbot-mcp-adv")
        let scan = try await fp.run(["scan", "--ble-source", "btsnoop:" + capture, "--fast", "--reports"])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stderr == "460 advertising reports from 28 transmitters\n")
        let golden = try String(contentsOfFile: capture.replacingOccurrences(of: ".btsnoop", with: ".tshark.tsv"), encoding: .utf8)
        #expect(scan.lines.count == golden.split(separator: "\n").count)  // tshark's count
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "all", "--fast",
                                  "--ble-source", "btsnoop:" + capture, "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let line = try #require(m.lines.first)
        let stored = try #require(try fp.json(line)["bleScans"] as? [[String: Any]])
        let printed = try scan.lines.map { try fp.json($0) }
        #expect(printed.count == stored.count)
        for (p, s) in zip(printed, stored) { #expect(NSDictionary(dictionary: p).isEqual(to: s)) }
        #expect(printed.contains { $0["serviceUuids"] != nil } && printed.contains { $0["name"] != nil })
    }
}
