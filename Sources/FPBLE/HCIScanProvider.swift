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
    var reader: HCIEventReader?

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
            let reader = HCIEventReader(clock: context.clock, sink: sink, rawLog: context.rawHCI)
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
            return ProviderStatus(status: .unavailable, source: source, reason: "\(error)")
        }
    }

    /// Real radios deliver from their own thread; the tick is not needed.
    public func advance(toMs ms: Int) async {}

    public func stop() async {
        let (wasRunning, controller, socket, previous, reader) = lock.withLock {
            let r = running
            running = false
            return (r, self.controller, self.socket, self.previous, self.reader)
        }
        guard wasRunning else { return }
        reader?.stop()
        // Never leave the adapter scanning; then give the socket its old filter back.
        try? controller?.stop()
        if let previous { socket?.restoreFilter(previous) }
    }

    /// Malformed events skipped so far.
    public var malformedEvents: Int { lock.withLock { reader }?.malformedEvents ?? 0 }
}

/// Reads H4 frames from an HCI socket on a thread of its own and turns every
/// LE advertising report into a BLE sample timed on the measurement clock.
/// Events the command engine caught first (reports arriving before the scan
/// enable's Command Complete) come in through `deliver`. A thread, not a
/// task: a blocked read must not hold one of the cooperative pool's threads.
public final class HCIEventReader: @unchecked Sendable {
    private let clock: any MeasurementClock
    private let sink: SampleSink
    private let lock = NSLock()
    private var decoder = EventDecoder()  // guarded by `lock`
    private var running = false  // guarded by `lock`
    private let done = DispatchSemaphore(value: 0)

    /// Every frame read, as read (`--keep-raw`); nil = not kept.
    private let rawLog: RawHCILog?

    public init(clock: any MeasurementClock, sink: SampleSink, rawLog: RawHCILog? = nil) {
        self.clock = clock
        self.sink = sink
        self.rawLog = rawLog
    }

    /// Starts reading `socket` until `stop`.
    public func start(reading socket: HCISocket, threadName: String) {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                guard let frame = try? socket.read(timeoutMs: 200) else { continue }
                let ms = clock.elapsedMs()
                rawLog?.record(RawHCIPacket(atMs: ms, h4: Array(frame), received: true))
                guard frame.first == H4Type.event.rawValue else { continue }
                decode(frame[1...], at: ms)
            }
            done.signal()
        }
        thread.name = threadName
        thread.start()
    }

    /// Stops reading and waits for the thread to finish (at most one poll timeout).
    public func stop() {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        if wasRunning { done.wait() }
    }

    /// An event that reached the command engine instead of the read loop.
    public func deliver(_ event: HCIEvent) {
        let packet = [event.code, UInt8(event.parameters.count)] + Array(event.parameters)
        let ms = clock.elapsedMs()
        rawLog?.record(RawHCIPacket(atMs: ms, h4: [H4Type.event.rawValue] + packet, received: true))
        decode(packet[...], at: ms)
    }

    private func decode(_ packet: ArraySlice<UInt8>, at ms: Int) {
        let scans = lock.withLock { decoder.scans(event: packet, time: ms) }
        if !scans.isEmpty { sink.emit(contentsOf: scans.map(Sample.ble)) }
    }

    /// Malformed events skipped so far.
    public var malformedEvents: Int { lock.withLock { decoder.malformed } }
}
