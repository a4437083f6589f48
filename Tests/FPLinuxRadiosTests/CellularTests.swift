import FPCore
import Foundation
import Testing
@testable import FPLinuxRadios

/// Replays recorded mmcli outputs by argument list; records what was asked.
final class RecordedMMCLI: CommandRunner, @unchecked Sendable {
    let outputs: [[String]: CommandResult]
    private let lock = NSLock()
    private var _calls: [[String]] = []
    var calls: [[String]] { lock.withLock { _calls } }

    init(_ outputs: [[String]: CommandResult]) { self.outputs = outputs }

    func run(_ arguments: [String], timeoutMs: Int) -> CommandResult? {
        lock.withLock { _calls.append(arguments) }
        return outputs[arguments] ?? CommandResult(status: 1, stdout: "", stderr: "error: unexpected arguments\n")
    }

    static func telit() throws -> RecordedMMCLI {
        func ok(_ f: String) throws -> CommandResult { CommandResult(status: 0, stdout: try Fixtures.text("mmcli/\(f)")) }
        return RecordedMMCLI([
            ["-L", "-J"]: try ok("modem-list.json"),
            ["-m", "0", "-J"]: try ok("telit-le910c4-modem.json"),
            ["-i", "0", "-J"]: try ok("telit-le910c4-sim.json"),
            ["-m", "0", "--location-get", "-J"]: try ok("telit-le910c4-location.json"),
            ["-m", "0", "--signal-get", "-J"]: try ok("telit-le910c4-signal.json"),
            ["-m", "0", "--signal-setup=1"]: CommandResult(status: 0, stdout: "successfully setup signal quality information polling\n"),
        ])
    }
}

@Suite struct MMCLIOutputTests {
    @Test func recordedTelitOutputsMakeOneServingCell() throws {
        let modem = try MMCLIOutput.modem(try Fixtures.text("mmcli/telit-le910c4-modem.json"))
        #expect(modem.state == "connected" && modem.accessTechnologies == ["lte"] && modem.signalPercent == 75)
        #expect(modem.operatorCode == "26202" && modem.registrationState == "roaming")
        #expect(modem.simPath == "/org/freedesktop/ModemManager1/SIM/0" && modem.model == "LE910C4-WWXD")
        let loc = try #require(try MMCLIOutput.location(try Fixtures.text("mmcli/telit-le910c4-location.json")))
        #expect(loc == .init(mcc: "262", mnc: "03", lac: nil, tac: 0xC945, cid: 0x0197_763E))
        let signal = try MMCLIOutput.signal(try Fixtures.text("mmcli/telit-le910c4-signal.json"))
        #expect(signal.value("lte", "rsrp") == -104 && signal.value("lte", "snr") == 2 && signal.value("lte", "rsrq") == nil)
        let home = try MMCLIOutput.simOperatorCode(try Fixtures.text("mmcli/telit-le910c4-sim.json"))
        #expect(home == "29505")

        let cell = MMCLIOutput.servingCell(modem: modem, simOperatorCode: home, location: loc, signal: signal, atMs: 1200)
        #expect(cell.type == "lte" && cell.serving == true && cell.time == 1200)
        #expect(cell.cid == 26_703_422 && cell.tac == 51_525 && cell.lac == nil)
        #expect(cell.mcc == "262" && cell.mnc == "03")  // the cell's network (location), not the operator code 26202
        #expect(cell.homeMcc == "295" && cell.homeMnc == "05" && cell.roaming == true && cell.operatorName == "vodafone.de")
        #expect(cell.rsrp == -104 && cell.sinr == 2 && cell.rsrq == nil)
        // The 5g block's rsrq and the gsm block's rssi are not the LTE cell's.
        #expect(cell.rssi == nil)
        #expect(cell.accessTechnology == "lte")
    }

    @Test func modemLists() throws {
        #expect(try MMCLIOutput.modemList(#"{"modem-list":["/org/freedesktop/ModemManager1/Modem/0","/org/freedesktop/ModemManager1/Modem/7"]}"#) == [0, 7])
        #expect(try MMCLIOutput.modemList(try Fixtures.text("mmcli/modem-list-empty.json")) == [])
        #expect(throws: MMCLIOutput.ParseError.self) { try MMCLIOutput.modemList("No modems were found") }
        #expect(throws: MMCLIOutput.ParseError.self) { try MMCLIOutput.modem(#"{"bearer":{}}"#) }
    }

    @Test(arguments: [
        (["lte"], "lte"), (["5gnr", "lte"], "nr"), (["umts", "hsdpa"], "umts"), (["hspa-plus"], "umts"),
        (["edge"], "gsm"), (["unknown"], nil),
    ] as [([String], String?)])
    func accessTechnologyToCellType(techs: [String], type: String?) {
        #expect(MMCLIOutput.cellType(techs) == type)
    }

    @Test func plmnSplitting() {
        #expect(MMCLIOutput.splitPLMN("23001")! == ("230", "01"))
        #expect(MMCLIOutput.splitPLMN("310260")! == ("310", "260"))
        #expect(MMCLIOutput.splitPLMN("2300") == nil && MMCLIOutput.splitPLMN("23O01") == nil && MMCLIOutput.splitPLMN(nil) == nil)
    }
}

@Suite struct ModemManagerProviderTests {
    @Test func pollsTheRecordedModemIntoCells() async throws {
        let mmcli = try RecordedMMCLI.telit()
        let provider = ModemManagerProvider(runner: mmcli, pollMs: 300)
        let sink = SampleSink()
        let status = await provider.start(context: realContext(), sink: sink)
        #expect(status == ProviderStatus(status: .ok, source: "modemmanager:modem0"))
        try await Task.sleep(nanoseconds: 1_000_000_000)
        await provider.stop()
        #expect(await provider.finalStatus() == nil)
        let cells = sink.drain().compactMap { if case .cell(let c) = $0 { c } else { nil } }
        // One poll every 300 ms for about a second (more when a loaded machine stretches the sleep).
        #expect(cells.count >= 2)
        #expect(cells.allSatisfy { $0.cid == 0x0197_763E && $0.homeMcc == "295" && $0.rsrp == -104 })
        #expect(zip(cells, cells.dropFirst()).allSatisfy { $1.time - $0.time >= 300 })
        #expect(mmcli.calls.contains(["-m", "0", "--signal-setup=1"]))
        // The SIM is read once, not every poll.
        #expect(mmcli.calls.filter { $0 == ["-i", "0", "-J"] }.count == 1)
    }

    @Test func mmcliNotInstalled() async {
        let provider = ModemManagerProvider(runner: ProcessRunner(executable: nil))
        let status = await provider.start(context: realContext(), sink: SampleSink())
        #expect(status == ProviderStatus(status: .unavailable, source: "modemmanager", reason: "ModemManager's mmcli is not installed"))
    }

    @Test func modemManagerNotRunning() async {
        // What mmcli prints when the daemon is not on the bus.
        let mmcli = RecordedMMCLI([["-L", "-J"]: CommandResult(
            status: 1, stdout: "", stderr: "error: couldn't find the ModemManager process in the bus\n")])
        let status = await ModemManagerProvider(runner: mmcli).start(context: realContext(), sink: SampleSink())
        #expect(status.status == .unavailable)
        #expect(status.reason == "ModemManager is not running: error: couldn't find the ModemManager process in the bus")
    }

    @Test func noModem() async throws {
        let mmcli = RecordedMMCLI([["-L", "-J"]: CommandResult(status: 0, stdout: try Fixtures.text("mmcli/modem-list-empty.json"))])
        let status = await ModemManagerProvider(runner: mmcli).start(context: realContext(), sink: SampleSink())
        #expect(status.reason == "ModemManager sees no modem")
    }

    @Test func failedModemSaysWhy() async throws {
        let modem = #"{"modem":{"generic":{"state":"failed","state-failed-reason":"sim-missing","access-technologies":[]},"3gpp":{}}}"#
        let mmcli = RecordedMMCLI([
            ["-L", "-J"]: CommandResult(status: 0, stdout: try Fixtures.text("mmcli/modem-list.json")),
            ["-m", "0", "-J"]: CommandResult(status: 0, stdout: modem),
        ])
        let status = await ModemManagerProvider(runner: mmcli).start(context: realContext(), sink: SampleSink())
        #expect(status.reason == "modem 0 failed: sim-missing")
    }

    @Test func realProcessRunnerTimesOut() {
        // Bounds far from the commands' own time: on a loaded machine the test is about outcome, not speed.
        let result = ProcessRunner(executable: "/bin/sleep").run(["60"], timeoutMs: 200)
        #expect(result?.timedOut == true)
        let echo = ProcessRunner(tool: "echo").run(["hi"], timeoutMs: 30_000)
        #expect(echo == CommandResult(status: 0, stdout: "hi\n"))
    }
}

@Suite struct ServingCellOnceTests {
    /// `fprint probe` records the cell a run went over with one reading, not a poll.
    @Test func oneReadingOfTheRecordedModem() throws {
        let mmcli = try RecordedMMCLI.telit()
        let cell = try #require(ModemManagerProvider(runner: mmcli).servingCell())
        #expect(cell.cid == 0x0197_763E && cell.serving == true && cell.homeMcc == "295" && cell.rsrp == -104)
        #expect(cell.type != nil && cell.mcc != nil && cell.mnc != nil)
        // No polling is set up for one reading: ModemManager's state is left alone.
        #expect(!mmcli.calls.contains { $0.contains { $0.hasPrefix("--signal-setup") } })
    }

    @Test func noModemNoCell() {
        let mmcli = RecordedMMCLI([["-L", "-J"]: CommandResult(
            status: 1, stdout: "", stderr: "error: couldn't find the ModemManager process in the bus\n")])
        #expect(ModemManagerProvider(runner: mmcli).servingCell() == nil)
    }
}
