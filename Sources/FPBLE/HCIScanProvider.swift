import FPCore
import FPHCI
import FPTransport
import Foundation

/// BLE from a kernel HCI socket: enables scanning (duplicates kept), reads
/// every LE advertising report on its own thread, and always restores the
/// adapter (scan off, previous filter) in `stop`, which the engine also calls
/// on Ctrl-C and SIGTERM.
public final class HCIScanProvider: RadioProvider, @unchecked Sendable {
    public let radio = Radio.ble
    public let device: UInt16
    public let exclusive: Bool
    public let parameters: HCICommand.ScanParameters

    let lock = NSLock()
    var socket: HCISocket?
    var controller: ScanController?
    var running = false
    var previous: HCISocket.SavedFilter?
    var reader: Thread?
    var decoder = EventDecoder()
    let done = DispatchSemaphore(value: 0)

    /// `socket`: one already opened by `preflight`, used instead of opening again
    /// (closing a user-channel socket powers the adapter down and back, and an
    /// immediate second bind can then find it busy).
    public init(device: UInt16, exclusive: Bool, parameters: HCICommand.ScanParameters, socket: HCISocket? = nil) {
        self.device = device
        self.exclusive = exclusive
        self.parameters = parameters
        self.prepared = socket
    }

    var prepared: HCISocket?

    public var source: String { "hci:hci\(device)" + (exclusive ? ":exclusive" : "") }

    /// Opens and binds the socket without scanning: the CLI calls this first
    /// so an explicit `--ble-source hci:…` fails with its one-line reason.
    public static func preflight(device: UInt16, exclusive: Bool) throws(HCISocketError) -> HCISocket {
        try HCISocket(device: device, exclusive: exclusive)
    }

    public func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        do {
            let socket = try lock.withLock { () throws(HCISocketError) -> HCISocket in
                defer { prepared = nil }
                if let prepared { return prepared }
                return try HCISocket(device: device, exclusive: exclusive)
            }
            // Filter before enabling: the controller may report at enable time.
            let previous = socket.currentFilter()
            try socket.setFilter()
            var engine = CommandEngine(transport: socket, deviceName: "hci\(device)")
            let clock = context.clock
            engine.onEvent = { [weak self] event in self?.deliver(event, at: clock.elapsedMs(), to: sink) }
            var controller = ScanController(engine: engine)
            do { try controller.start(parameters) } catch {
                if let previous { socket.restoreFilter(previous) }
                throw error
            }
            lock.withLock {
                self.previous = previous
                self.socket = socket
                self.controller = controller
                running = true
            }
            let thread = Thread { [self] in readLoop(socket: socket, clock: clock, sink: sink) }
            thread.name = "fprint-hci\(device)"
            thread.start()
            reader = thread
            return ProviderStatus(status: .ok, source: source)
        } catch {
            return ProviderStatus(status: .unavailable, source: source, reason: "\(error)")
        }
    }

    func deliver(_ event: HCIEvent, at ms: Int, to sink: SampleSink) {
        let packet = [event.code, UInt8(event.parameters.count)] + Array(event.parameters)
        let scans = lock.withLock { decoder.scans(event: packet[...], time: ms) }
        if !scans.isEmpty { sink.emit(contentsOf: scans.map(Sample.ble)) }
    }

    func readLoop(socket: HCISocket, clock: any MeasurementClock, sink: SampleSink) {
        while lock.withLock({ running }) {
            guard let frame = try? socket.read(timeoutMs: 200) else { continue }
            guard frame.first == H4Type.event.rawValue else { continue }
            let ms = clock.elapsedMs()
            let scans = lock.withLock { decoder.scans(event: frame[1...], time: ms) }
            if !scans.isEmpty { sink.emit(contentsOf: scans.map(Sample.ble)) }
        }
        done.signal()
    }

    /// Real radios deliver from their own thread; the tick is not needed.
    public func advance(toMs ms: Int) async {}

    public func stop() async {
        let (wasRunning, controller, socket, previous) = lock.withLock {
            let r = running
            running = false
            return (r, self.controller, self.socket, self.previous)
        }
        guard wasRunning else { return }
        done.wait()
        // Never leave the adapter scanning; then give the socket its old filter back.
        try? controller?.stop()
        if let previous { socket?.restoreFilter(previous) }
    }

    /// Malformed events skipped so far.
    public var malformedEvents: Int { lock.withLock { decoder.malformed } }
}
