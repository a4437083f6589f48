import Dispatch
import Glibc
import Synchronization

/// Syncs a database's WAL on another thread while a long transaction goes
/// on, so the commit's own fsync has only the last writes left to wait for
/// (`insertNew`). Each sync is of frames SQLite has written and not yet
/// committed: syncing them early changes nothing of what the commit means.
/// Without a WAL (a rollback journal) it does nothing.
final class WALWriteback: Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "fprint.wal-writeback")
    private let queued = QueuedFlag()

    init(databasePath: String) {
        fd = open(databasePath + "-wal", O_RDONLY | O_CLOEXEC)
    }

    /// Closed after the syncs queued before, without waiting for them.
    deinit {
        guard fd >= 0 else { return }
        queue.async { [fd] in _ = close(fd) }
    }

    /// Starts writing what the WAL holds to disk, unless a sync is already
    /// waiting to start (one is enough: it takes all there is).
    func start() {
        guard fd >= 0, queued.raise() else { return }
        queue.async { [fd, queued] in
            queued.lower()
            _ = fdatasync(fd)
        }
    }

    /// Whether a sync is queued and not started yet.
    private final class QueuedFlag: Sendable {
        private let flag = Mutex(false)

        /// Raises the flag; false when it was up already.
        func raise() -> Bool { flag.withLock { up in defer { up = true }; return !up } }
        func lower() { flag.withLock { $0 = false } }
    }
}
