import FPCore
import FPHCI
import FPTransport
import Foundation
import Glibc
import SystemPackage
import Testing

@testable import FPBLE

/// The live reader never hides a failed read: transient errors are read
/// again, a vanished adapter ends the source with what came before kept,
/// anything else is retried after a pause and counted.
@Suite(.serialized) struct ReadFaultTests {
    @Test(arguments: [
        (HCISocketError.system("read hci0", Errno(rawValue: EINTR)), HCIReadFault.transient),
        (.system("read hci0", Errno(rawValue: EAGAIN)), .transient),
        (.system("read hci0", Errno(rawValue: EPIPE)), .vanished),  // what the kernel answers once an adapter is unregistered
        (.system("read hci0", Errno(rawValue: ENXIO)), .vanished),
        (.system("poll hci0", Errno(rawValue: EBADF)), .vanished),
        (.noAdapter("no Bluetooth adapter hci0"), .vanished),
        (.adapterDown("adapter hci0 is down"), .vanished),
        (.closed(device: "hci0"), .vanished),
        (.system("read hci0", Errno(rawValue: EIO)), .persistent),
        (.system("read hci0", Errno(rawValue: ENOTCONN)), .persistent),
    ])
    func readErrorsAreSorted(error: HCISocketError, fault: HCIReadFault) {
        #expect(error.readFault == fault)
    }

    /// A real socket whose every read fails: a listening TCP socket with a
    /// connection waiting polls readable, and read() on it fails with ENOTCONN.
    @Test func aPersistentlyFailingSocketIsRetriedWithAPauseAndReported() async throws {
        var (listener, address) = try loopbackSocket(SOCK_STREAM)
        try #require(listen(listener, 1) == 0)
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        try #require(connected)

        let sink = SampleSink()
        let reader = HCIEventReader(clock: MonotonicClock(), sink: sink, retryPauseMs: 100)
        let started = ContinuousClock.now
        reader.start(reading: HCISocket(adopting: listener, device: 5), threadName: "test-failing-read")
        #expect(try await eventually(120) { reader.health.readErrors >= 3 })
        await reader.stop()
        // The reader ran until stop returned.
        let ran = ContinuousClock.now - started

        let health = reader.health
        // About one try per pause: a loop that spun on the error would count thousands.
        let pauses = Int(ran / .milliseconds(100))
        #expect(health.readErrors >= 3 && health.readErrors <= pauses + 2,
                "\(health.readErrors) read errors in \(ran)")
        #expect(health.lastReadError == .system("read hci5", Errno(rawValue: ENOTCONN)))
        #expect(health.vanished == nil)
        // Nothing heard and every read failing: the status says so, with the error.
        let status = HCIScanProvider.status(source: "hci:hci5", device: "hci5", health: health, retryPauseMs: 100)
        #expect(status.status == .unavailable)
        #expect(status.reason?.contains("read errors on hci5, each retried after 100 ms") == true)
        #expect(status.reason?.contains("Transport endpoint is not connected") == true)
    }

    @Test func readingGoesOnAfterErrorsAndTransientOnesAreNotCounted() async throws {
        let source = ScriptedFrameSource([
            .fail(.system("read hci0", Errno(rawValue: EINTR))),
            .fail(.system("read hci0", Errno(rawValue: EIO))),
            .fail(.system("read hci0", Errno(rawValue: EIO))),
            .frame(advertisingReport(last: 0x01)),
        ])
        let sink = SampleSink()
        let reader = HCIEventReader(clock: MonotonicClock(), sink: sink, retryPauseMs: 50)
        reader.start(reading: source, threadName: "test-scripted-read")
        #expect(try await eventually { sink.count(.ble) == 1 })
        await reader.stop()
        let health = reader.health
        #expect(health.readErrors == 2)
        #expect(health.lastReadError == .system("read hci0", Errno(rawValue: EIO)))
        #expect(health.reports == 1)
        // Each EIO waits the pause before the next read (a lower bound holds
        // on any machine; that EINTR does not wait is the next test's).
        let reads = source.reads
        try #require(reads.count >= 4)
        #expect(reads[2].timeIntervalSince(reads[1]) >= 0.045)
        #expect(reads[3].timeIntervalSince(reads[2]) >= 0.045)
        let status = HCIScanProvider.status(source: "hci:hci0", device: "hci0", health: health, retryPauseMs: 50)
        #expect(status.status == .ok)
        #expect(status.reason?.hasPrefix("2 read errors on hci0") == true)
    }

    /// EINTR is read again at once: with a ten-minute pause after real
    /// errors, the frame after an EINTR still arrives.
    @Test func anInterruptedReadIsRetriedWithoutAPause() async throws {
        let source = ScriptedFrameSource([
            .fail(.system("read hci0", Errno(rawValue: EINTR))),
            .frame(advertisingReport(last: 0x01)),
        ])
        let sink = SampleSink()
        let reader = HCIEventReader(clock: MonotonicClock(), sink: sink, retryPauseMs: 600_000)
        reader.start(reading: source, threadName: "test-eintr-read")
        #expect(try await eventually(120) { sink.count(.ble) == 1 })
        await reader.stop()
        #expect(reader.health.readErrors == 0)
    }

    /// A real socketpair stands in for the adapter; closing its far end is the adapter going away.
    @Test func aClosedSocketEndsTheReaderAndKeepsWhatCameBefore() async throws {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        let sink = SampleSink()
        let reader = HCIEventReader(clock: MonotonicClock(), sink: sink)
        let socket = HCISocket(adopting: fds[0], device: 3)
        reader.start(reading: socket, threadName: "test-socketpair")
        let frames = (1...5).map { advertisingReport(last: UInt8($0)) } + [malformedReport]
        for frame in frames {
            try #require(frame.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == frame.count)
        }
        close(fds[1])
        // The loop ends by itself; no stop is needed for it to notice.
        #expect(try await eventually { reader.health.vanished != nil })
        let health = reader.health
        #expect(health.vanished?.error == .closed(device: "hci3"))
        #expect(health.reports == 5)
        #expect(health.malformed == 1)
        let addresses = sink.drain().compactMap { if case .ble(let s) = $0 { s.address } else { nil } }
        #expect(addresses == (1...5).map { "AA:BB:CC:DD:EE:0\($0)" })
        await reader.stop()  // returns at once for a loop that already ended
    }

    @Test func writingAnEmptyFrameIsAnErrorNotACrash() throws {
        // An unconnected datagram socket: the kernel refuses the write (no destination).
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(fd >= 0)
        let socket = HCISocket(adopting: fd, device: 0)
        #expect(throws: HCISocketError.system("write to hci0", Errno(rawValue: EDESTADDRREQ))) { try socket.write([]) }
    }
}
