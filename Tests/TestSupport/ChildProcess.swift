import Foundation
import Synchronization

/// Reads one pipe to its end on a thread of its own, then closes it. A child
/// blocks once a pipe holds 64 KB nobody reads, so a runner must drain stdout
/// and stderr together: reading one to the end first deadlocks on a chatty
/// other.
///
/// Closed at its end, not when the handle goes: Foundation's `Process` keeps
/// a reference to its pipes after the child exits (its run-loop source is only
/// removed by `waitUntilExit`, which tests do not call), so without the close
/// every child left its read ends open — 1,200 in one run of the suite, and
/// past ~1,350 open descriptors `Process.run` itself can crash (its scan of
/// /proc/self/fd copies 256 bytes from each entry and reads off the end of
/// glibc's buffer: swift-corelibs-foundation PR #5472, not in Swift 6.3.1).
public final class PipeDrain: Sendable {
    private let end = Handover<Data>()
    private let received = ReceivedBytes()

    public init(_ handle: FileHandle, name: String) {
        let end = self.end
        let received = self.received
        let thread = Thread {
            readToEnd(handle, name: name) { received.append($0) }
            try? handle.close()
            end.fulfil(received.value)
        }
        thread.name = "pipe-drain-\(name)"
        thread.start()
    }

    /// What the pipe has carried so far.
    public var soFar: Data { received.value }

    /// Everything the pipe carried, once its writers have all closed it.
    public func data() async -> Data { await end.value() }
}

/// Reads `handle` with read(2) until its end, handing each chunk over.
/// Not `availableData`: Foundation ends the whole process (every test of the
/// run) when that read fails, and once, beside the gateway tests, a drain's
/// descriptor was found closed (EBADF) under it. A failed read ends this
/// drain with a line on stderr, so only the test that needed it fails.
public func readToEnd(_ handle: FileHandle, name: String, _ chunk: (Data) -> Void) {
    let fd = handle.fileDescriptor
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            chunk(Data(buffer[0..<n]))
        } else if n < 0, errno == EINTR {
            continue
        } else {
            if n < 0 {
                let error = errno
                FileHandle.standardError.write(Data("\(name): reading descriptor \(fd) failed: errno \(error)\n".utf8))
            }
            return
        }
    }
}

/// Bytes one thread appends while others read them.
final class ReceivedBytes: Sendable {
    private let bytes = Mutex(Data())
    func append(_ chunk: Data) { bytes.withLock { $0.append(chunk) } }
    var value: Data { bytes.withLock { $0 } }
}

extension Process {
    /// Starts the process with its exit handed over as it happens, so tests
    /// await it (`Handover.value()`) instead of blocking in `waitUntilExit`.
    public func startAwaitingExit() async throws -> Handover<Int32> {
        let exit = Handover<Int32>()
        terminationHandler = { exit.fulfil($0.terminationStatus) }
        try await runWhenDescriptorsAllow()
        return exit
    }

    /// `run()`, once this process holds fewer than 1,000 open descriptors
    /// (waiting up to 10 s). Swift 6.3.1's `Process.run` lists /proc/self/fd
    /// and copies 256 bytes from each entry, reading off the end of glibc's
    /// 32 KiB directory buffer once ~1,350 entries fill it; when that buffer
    /// ends a mapping the test process crashes (SIGSEGV in memcpy;
    /// swift-corelibs-foundation PR #5472). The gateway attack tests hold
    /// hundreds of sockets for a moment, so a spawn beside them waits.
    ///
    /// The wait suspends rather than sleeps: a blocked thread is one of the
    /// cooperative pool's two here, and the sockets it waits for are closed
    /// by tasks that need that pool (with `usleep` the gateway tests beside
    /// it missed their 10 s busy timeouts).
    public func runWhenDescriptorsAllow() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, Self.openDescriptors >= 1000 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try run()
    }

    /// How many descriptors this process holds.
    static var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
