import Foundation

/// Runs one job at a time beside the caller, so the next batch is prepared
/// meanwhile: the push's uploads (libcurl blocks) while the next batch is
/// read and signed, the pull's stores while the next slice is fetched.
/// Jobs run in the order submitted, one after the other.
///
/// A serial dispatch queue, not a thread of our own: the store's
/// `concurrentMap` uses `concurrentPerform`, and libdispatch on Linux
/// corrupts its per-thread caches when a thread it did not make calls that
/// and exits (a crash in `_dispatch_cache_cleanup`, seen in the tests).
/// Serial queues run on overcommit threads, so a blocked upload starves
/// nothing.
final class SerialStage: @unchecked Sendable {
    private let queue = DispatchQueue(label: "fprint.sync.stage")
    // Touched by the submitting thread only; `failure` is written by the
    // worker before it leaves the group and read after `wait()` returns.
    private var inFlight: DispatchGroup?
    private var failure: SyncError?

    /// Waits for the job in flight (rethrowing its error), then starts `work`.
    func submit(_ work: @escaping @Sendable () throws(SyncError) -> Void) throws(SyncError) {
        try wait()
        let group = DispatchGroup()
        group.enter()
        inFlight = group
        queue.async { [self] in
            do throws(SyncError) {
                try work()
            } catch {
                failure = error
            }
            group.leave()
        }
    }

    /// Waits for the job in flight and rethrows its error.
    func wait() throws(SyncError) {
        inFlight?.wait()
        inFlight = nil
        if let failure {
            self.failure = nil
            throw failure
        }
    }

    /// Waits without rethrowing: nothing may outlive the push that started it.
    func drain() {
        inFlight?.wait()
        inFlight = nil
    }
}
