import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Stops a probe from another thread (Ctrl-C): the sockets it has open are
/// shut down, so a blocking receive or send returns at once, and its loops
/// and phases ask `isCancelled` before going on. Sockets are closed through
/// here, so a shutdown never meets a descriptor number already reused.
public final class ProbeCancellation: Sendable {
    private struct State {
        var cancelled = false
        var open: Set<Int32> = []
    }

    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    public func cancel() {
        state.withLock { s in
            s.cancelled = true
            for fd in s.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Watches `fd` until `close`; a probe already cancelled gets it shut at once.
    func watch(_ fd: Int32) {
        state.withLock { s in
            s.open.insert(fd)
            if s.cancelled { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    func close(_ fd: Int32) {
        state.withLock { s in
            s.open.remove(fd)
            _ = Glibc.close(fd)
        }
    }
}
