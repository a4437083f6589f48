import Foundation

/// A dedicated thread for a blocking read loop. Providers block in `poll`
/// and subprocesses; doing that on Swift's cooperative pool (two threads on a
/// two-core machine) would stall the engine's clock, so each gets a thread.
final class ReaderThread: @unchecked Sendable {
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// Starts `body`; it should return soon after `shouldStop()` turns true.
    init(name: String, _ body: @escaping @Sendable (_ shouldStop: @escaping @Sendable () -> Bool) -> Void) {
        let t = Thread { [self] in
            body { [self] in lock.withLock { stopping } }
            done.signal()
        }
        t.name = name
        thread = t
        t.start()
    }

    /// Asks the loop to stop and waits for it (off the cooperative pool).
    func stop() async {
        lock.withLock { stopping = true }
        let done = self.done
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                done.wait()
                c.resume()
            }
        }
    }
}
