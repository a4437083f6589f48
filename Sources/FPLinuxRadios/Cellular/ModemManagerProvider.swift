import FPCore
import Foundation

/// Serving cells through ModemManager's `mmcli -J`: the first modem's
/// registration, 3GPP location (cell id, LAC/TAC) and signal (RSSI, RSRP, RSRQ,
/// SINR after `--signal-setup`), polled for the whole measurement into `cellScans[]`.
package final class ModemManagerProvider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.cell
    let runner: any CommandRunner
    let pollMs: Int
    let timeoutMs: Int
    private var reader: ReaderThread?
    private let lock = NSLock()
    private var pollErrors: [String] = []
    private var cells = 0

    package init(runner: any CommandRunner = ProcessRunner(tool: "mmcli"), pollMs: Int = 2000, timeoutMs: Int = 5000) {
        self.runner = runner
        self.pollMs = pollMs
        self.timeoutMs = timeoutMs
    }

    /// What `start` finds: the modem to poll, or why there is none.
    package enum Probe: Sendable, Equatable {
        case modem(index: Int, model: String?)
        case unavailable(String)
    }

    /// Finds a usable modem (also used by `fprint doctor`).
    package func probe() -> Probe {
        guard let list = runner.run(["-L", "-J"], timeoutMs: timeoutMs) else {
            return .unavailable("ModemManager's mmcli is not installed")
        }
        if list.timedOut { return .unavailable("mmcli -L did not answer within \(timeoutMs) ms") }
        guard list.status == 0 else { return .unavailable("ModemManager is not running: \(list.errorLine)") }
        let indexes: [Int]
        do { indexes = try MMCLIOutput.modemList(list.stdout) } catch { return .unavailable(error.description) }
        guard let index = indexes.first else { return .unavailable("ModemManager sees no modem") }
        guard let out = runner.run(["-m", String(index), "-J"], timeoutMs: timeoutMs), out.status == 0,
              let modem = try? MMCLIOutput.modem(out.stdout)
        else { return .unavailable("mmcli could not read modem \(index)") }
        switch modem.state {
        case "failed":
            return .unavailable("modem \(index) failed: \(modem.failedReason ?? "unknown reason")")
        case "disabled", "disabling", "locked", "initializing":
            return .unavailable("modem \(index) is \(modem.state!) (enable it: mmcli -m \(index) -e)")
        default: return .modem(index: index, model: modem.model)
        }
    }

    /// Probing runs mmcli, a child process that may take seconds: off the cooperative pool.
    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        await BlockingWork.run("fprint.mmcli.start") { [self] in startPolling(context: context, sink: sink) }
    }

    private func startPolling(context: CaptureContext, sink: SampleSink) -> ProviderStatus {
        let probe = probe()
        guard case .modem(let index, _) = probe else {
            if case .unavailable(let reason) = probe {
                return ProviderStatus(status: .unavailable, source: "modemmanager", reason: reason)
            }
            return ProviderStatus(status: .unavailable, source: "modemmanager")
        }
        let m = String(index)
        // Signal polling is off by default in ModemManager; without it --signal-get is empty.
        // Needs privileges (polkit); failing here only costs the signal values.
        _ = runner.run(["-m", m, "--signal-setup=\(max(pollMs / 1000, 1))"], timeoutMs: timeoutMs)
        let clock = context.clock
        let pollMs = self.pollMs
        reader = ReaderThread(name: "fprint-mmcli") { [self] shouldStop in
            var home: String?? = .none  // the SIM rarely changes: read once
            var next = 0
            while !shouldStop() {
                let now = clock.elapsedMs()
                if now < next { Thread.sleep(forTimeInterval: 0.05); continue }
                next = now + pollMs
                guard let cell = readServingCell(modem: m, home: &home, atMs: now) else { note("mmcli -m \(m) failed"); continue }
                lock.withLock { cells += 1 }
                sink.emit(.cell(cell))
            }
        }
        return ProviderStatus(status: .ok, source: "modemmanager:modem\(index)")
    }

    /// The serving cell now, read once (`fprint probe` records the cell a run
    /// went over). Signal values are there only if ModemManager already polls
    /// them (`--signal-setup`, as a measurement sets up); nil without a modem.
    package func servingCell() -> CellScan? {
        guard case .modem(let index, _) = probe() else { return nil }
        var home: String?? = .none
        return readServingCell(modem: String(index), home: &home, atMs: 0)
    }

    /// One reading of modem `m`: registration, location and signal. `home`
    /// caches the SIM's operator, which rarely changes, across polls.
    private func readServingCell(modem m: String, home: inout String??, atMs ms: Int) -> CellScan? {
        guard let out = runner.run(["-m", m, "-J"], timeoutMs: timeoutMs), out.status == 0,
              let modem = try? MMCLIOutput.modem(out.stdout)
        else { return nil }
        if home == nil {
            home = .some(modem.simPath.flatMap { $0.split(separator: "/").last }.flatMap { sim in
                runner.run(["-i", String(sim), "-J"], timeoutMs: timeoutMs).flatMap { try? MMCLIOutput.simOperatorCode($0.stdout) } ?? nil
            })
        }
        let location = runner.run(["-m", m, "--location-get", "-J"], timeoutMs: timeoutMs)
            .flatMap { $0.status == 0 ? (try? MMCLIOutput.location($0.stdout)) ?? nil : nil }
        let signal = runner.run(["-m", m, "--signal-get", "-J"], timeoutMs: timeoutMs)
            .flatMap { $0.status == 0 ? try? MMCLIOutput.signal($0.stdout) : nil }
        // The cell is timed when the poll began: that is when the modem was asked.
        return MMCLIOutput.servingCell(modem: modem, simOperatorCode: home ?? nil, location: location, signal: signal, atMs: ms)
    }

    private func note(_ error: String) { lock.withLock { pollErrors.append(error) } }

    package func advance(toMs ms: Int) async {}

    package func stop() async { await reader?.stop() }

    package func finalStatus() async -> ProviderStatus? {
        let (cells, errors) = lock.withLock { (self.cells, pollErrors) }
        if cells > 0 { return nil }
        return ProviderStatus(status: .unavailable, source: "modemmanager",
                              reason: errors.first ?? "the modem reported no cell during the measurement")
    }
}
