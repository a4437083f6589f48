import Foundation

/// A dedicated thread for a blocking read loop: the live HCI reader, nl80211,
/// gpsd and ModemManager each run one. They block in `poll` and subprocesses;
/// doing that on Swift's cooperative pool (two threads on a two-core machine)
/// would stall the engine's clock. One loop per instance: start another
/// `ReaderThread` to read again.
public final class ReaderThread: @unchecked Sendable {
    private let lock = NSLock()
    private var stopping = false  // guarded by `lock`
    private var finished = false  // guarded by `lock`
    private var waiters: [CheckedContinuation<Void, Never>] = []  // guarded by `lock`

    /// Starts `body` at once; it should return soon after `shouldStop()` turns
    /// true, and may return earlier on its own (its source went away).
    public init(name: String, _ body: @escaping @Sendable (_ shouldStop: @escaping @Sendable () -> Bool) -> Void) {
        let thread = Thread { [self] in
            body { [self] in lock.withLock { stopping } }
            let waiting = lock.withLock {
                finished = true
                defer { waiters.removeAll() }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
        }
        thread.name = name
        thread.start()
    }

    /// Asks the loop to stop and suspends until it has returned. No thread
    /// blocks while waiting, so callers on the cooperative pool are safe;
    /// calling it again, or after the loop ended by itself, returns at once.
    public func stop() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let done = lock.withLock {
                stopping = true
                if !finished { waiters.append(waiter) }
                return finished
            }
            if done { waiter.resume() }
        }
    }

    /// True once the loop has returned (stopped, or ended by itself).
    public var isFinished: Bool { lock.withLock { finished } }
}
