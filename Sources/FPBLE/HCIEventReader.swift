import FPCore
import FPHCI
import FPTransport
import Foundation

/// Reads H4 frames from an HCI socket on a `ReaderThread` and turns every LE
/// advertising report into a BLE sample timed on the measurement clock.
/// Events the command engine caught first (reports arriving before the scan
/// enable's Command Complete) come in through `deliver`.
///
/// Read errors are never swallowed (`HCIReadFault`): transient ones are read
/// again at once, a vanished adapter ends the loop (what was read stays in
/// the sink), anything else is retried after `retryPauseMs` and counted, so a
/// persistent error neither spins nor goes unreported (`health`).
package final class HCIEventReader: @unchecked Sendable {
    private let clock: any MeasurementClock
    private let sink: SampleSink
    private let retryPauseMs: Int
    private let lock = NSLock()
    private var decoder = EventDecoder()  // guarded by `lock`
    private var state = ReaderHealth()  // guarded by `lock`
    private var thread: ReaderThread?  // guarded by `lock`

    /// Every frame read, as read (`--keep-raw`); nil = not kept.
    private let rawLog: RawHCILog?

    package init(clock: any MeasurementClock, sink: SampleSink, rawLog: RawHCILog? = nil, retryPauseMs: Int = 100) {
        self.clock = clock
        self.sink = sink
        self.rawLog = rawLog
        self.retryPauseMs = retryPauseMs
    }

    /// Starts reading `source` until `stop` or until its adapter vanishes.
    package func start(reading source: any HCIFrameSource, threadName: String) {
        let thread = ReaderThread(name: threadName) { [self] shouldStop in
            readLoop(source, until: shouldStop)
        }
        lock.withLock { self.thread = thread }
    }

    /// Stops reading and waits for the loop to end (at most one poll timeout)
    /// without blocking the caller's thread.
    package func stop() async {
        let thread = lock.withLock { self.thread }
        await thread?.stop()
    }

    /// An event that reached the command engine instead of the read loop.
    package func deliver(_ event: HCIEvent) {
        let ms = clock.elapsedMs()
        if let rawLog { rawLog.record(RawHCIPacket(atMs: ms, h4: event.h4, received: true)) }
        let scans = lock.withLock { decoder.scans(event: event, time: ms) }
        emit(scans)
    }

    /// What the reader has met so far.
    package var health: ReaderHealth {
        lock.withLock {
            var h = state
            h.malformed = decoder.malformed
            h.adErrors = decoder.adErrors
            return h
        }
    }

    /// Malformed events skipped so far.
    package var malformedEvents: Int { lock.withLock { decoder.malformed } }

    private func readLoop(_ source: any HCIFrameSource, until shouldStop: () -> Bool) {
        while !shouldStop() {
            let frame: [UInt8]?
            do {
                frame = try source.read(timeoutMs: 200)
            } catch {
                switch error.readFault {
                case .transient:
                    continue
                case .vanished:
                    let ms = clock.elapsedMs()
                    lock.withLock { state.vanished = .init(atMs: ms, error: error) }
                    return
                case .persistent:
                    lock.withLock {
                        state.readErrors += 1
                        state.lastReadError = error
                    }
                    Thread.sleep(forTimeInterval: Double(retryPauseMs) / 1000)
                    continue
                }
            }
            // Nothing within the timeout, or an empty datagram: nothing to log or decode.
            guard let frame, !frame.isEmpty else { continue }
            let ms = clock.elapsedMs()
            rawLog?.record(RawHCIPacket(atMs: ms, h4: frame, received: true))
            guard frame.first == H4Type.event.rawValue else { continue }
            let scans = lock.withLock { decoder.scans(event: frame[1...], time: ms) }
            emit(scans)
        }
    }

    private func emit(_ scans: [BLEScan]) {
        guard !scans.isEmpty else { return }
        lock.withLock { state.reports += scans.count }
        sink.emit(contentsOf: scans.map(Sample.ble))
    }
}

/// What a live HCI reader met: reports delivered, events it could not
/// decode, read errors it retried, and whether its adapter went away.
package struct ReaderHealth: Sendable, Equatable {
    /// Advertising reports turned into samples.
    package var reports = 0
    /// Malformed events skipped.
    package var malformed = 0
    /// Reports whose advertising data did not decode (stored with their data raw).
    package var adErrors = 0
    /// Persistent read errors, each retried after a pause.
    package var readErrors = 0
    package var lastReadError: HCISocketError?
    /// Set when the adapter vanished: the loop ended there.
    package var vanished: Vanishing?

    package struct Vanishing: Sendable, Equatable {
        /// Measurement-clock time of the failed read.
        package var atMs: Int
        package var error: HCISocketError
    }

    package init() {}
}
