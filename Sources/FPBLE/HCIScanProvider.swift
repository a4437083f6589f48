import FPCore
import FPHCI
import FPTransport
import Foundation

/// BLE from a kernel HCI socket: enables scanning (duplicates kept), reads
/// every LE advertising report on its own thread (`HCIEventReader`), and
/// always restores the adapter (scan off, previous filter) in `stop`, which
/// the engine also calls on Ctrl-C and SIGTERM. Its final status carries the
/// malformed count, read errors, and an adapter that went away mid-measurement.
package final class HCIScanProvider: RadioProvider, @unchecked Sendable {
    package let radio = Radio.ble
    package let device: UInt16
    package let exclusive: Bool
    package let parameters: HCICommand.ScanParameters

    let lock = NSLock()
    var socket: (any HCIScanSocket)?
    var controller: ScanController?
    var running = false
    var previous: HCISocket.SavedFilter?
    var reader: HCIEventReader?
    var prepared: (any HCIScanSocket)?
    var startFailure: HCISocketError?
    let retryPauseMs: Int

    /// `socket`: one already opened by `preflight`, used instead of opening again
    /// (closing a user-channel socket powers the adapter down and back, and an
    /// immediate second bind can then find it busy). Tests pass their own.
    package init(device: UInt16, exclusive: Bool, parameters: HCICommand.ScanParameters,
                socket: (any HCIScanSocket)? = nil, retryPauseMs: Int = 100) {
        self.device = device
        self.exclusive = exclusive
        self.parameters = parameters
        self.prepared = socket
        self.retryPauseMs = retryPauseMs
    }

    package var source: String { "hci:hci\(device)" + (exclusive ? ":exclusive" : "") }

    /// Opens and binds the socket without scanning: the CLI calls this first
    /// so an explicit `--ble-source hci:…` fails with its one-line reason.
    package static func preflight(device: UInt16, exclusive: Bool) throws(HCISocketError) -> HCISocket {
        try HCISocket(device: device, exclusive: exclusive)
    }

    /// Opening the socket and the HCI commands wait on the controller (up to
    /// seconds when it does not answer): they run off the cooperative pool.
    package func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        await BlockingWork.run("fprint.hci.start") { [self] in startScanning(context: context, sink: sink) }
    }

    private func startScanning(context: CaptureContext, sink: SampleSink) -> ProviderStatus {
        do {
            let socket = try lock.withLock { () throws(HCISocketError) -> any HCIScanSocket in
                defer { prepared = nil }
                if let prepared { return prepared }
                return try HCISocket(device: device, exclusive: exclusive)
            }
            // Filter before enabling: the controller may report at enable time.
            let previous = socket.currentFilter()
            try socket.setFilter(events: nil)
            let reader = HCIEventReader(clock: context.clock, sink: sink, rawLog: context.rawHCI,
                                        retryPauseMs: retryPauseMs)
            var engine = CommandEngine(transport: socket, deviceName: "hci\(device)")
            engine.onEvent = { event in reader.deliver(event) }
            var controller = ScanController(engine: engine)
            do { try controller.start(parameters) } catch {
                if let previous { socket.restoreFilter(previous) }
                throw error
            }
            lock.withLock {
                self.previous = previous
                self.socket = socket
                self.controller = controller
                self.reader = reader
                running = true
            }
            reader.start(reading: socket, threadName: "fprint-hci\(device)")
            return ProviderStatus(status: .ok, source: source)
        } catch {
            // Kept as the socket said it, so a command can give its exit code (a permission is 81, not 84).
            lock.withLock { startFailure = error as? HCISocketError }
            return ProviderStatus(status: .unavailable, source: source, reason: "\(error)")
        }
    }

    /// Why the last start failed, when the HCI socket said so; nil otherwise.
    package var lastStartFailure: HCISocketError? { lock.withLock { startFailure } }

    /// Real radios deliver from their own thread; the tick is not needed.
    package func advance(toMs ms: Int) async {}

    package func stop() async {
        let (wasRunning, reader) = lock.withLock {
            let r = running
            running = false
            return (r, self.reader)
        }
        guard wasRunning else { return }
        await reader?.stop()
        await BlockingWork.run("fprint.hci.stop") { [self] in restoreAdapter() }
    }

    /// Never leaves the adapter scanning; then gives the socket its old filter back.
    /// Both fail harmlessly when the adapter has gone: there is nothing left to restore.
    private func restoreAdapter() {
        let (controller, socket, previous) = lock.withLock { (self.controller, self.socket, self.previous) }
        try? controller?.stop()
        if let previous { socket?.restoreFilter(previous) }
    }

    /// After `stop`: what the reader met, so live documents carry the same
    /// `malformed` count replayed ones do, and a vanished adapter is `unavailable`.
    package func finalStatus() async -> ProviderStatus? { currentStatus }

    /// The status so far, for live views (`fprint scan`); nil before a successful start.
    package var currentStatus: ProviderStatus? {
        readerHealth.map { Self.status(source: source, device: "hci\(device)", health: $0, retryPauseMs: retryPauseMs) }
    }

    /// What the reader has met so far; nil before a successful start.
    package var readerHealth: ReaderHealth? { lock.withLock { reader }?.health }

    /// The status a finished live read earns. Reports heard before a fault are
    /// kept in either case: the engine already holds them.
    static func status(source: String, device: String, health: ReaderHealth, retryPauseMs: Int) -> ProviderStatus {
        var status: ProviderStatus
        if let gone = health.vanished {
            status = ProviderStatus(
                status: .unavailable, source: source,
                reason: "\(device) went away \(Self.seconds(gone.atMs)) into the measurement (\(gone.error)); "
                    + "the \(health.reports) reports heard before are kept")
        } else if let last = health.lastReadError {
            let retried = "\(health.readErrors) read errors on \(device), each retried after \(retryPauseMs) ms; the last: \(last)"
            // Errors and nothing heard: the source did not work, whatever it said at start.
            status = ProviderStatus(status: health.reports == 0 ? .unavailable : .ok, source: source, reason: retried)
        } else {
            status = ProviderStatus(status: .ok, source: source)
        }
        status.malformed = health.malformed
        status.adErrors = health.adErrors
        return status
    }

    /// `12.3 s`.
    static func seconds(_ ms: Int) -> String { String(format: "%.1f s", Double(ms) / 1000) }

    /// Malformed events skipped so far.
    package var malformedEvents: Int { lock.withLock { reader }?.malformedEvents ?? 0 }
}
