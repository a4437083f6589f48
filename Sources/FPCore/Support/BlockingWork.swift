import Dispatch

/// Blocking work — a system call that waits, a child process, an HCI command
/// round trip, a store call — run on a dispatch thread and awaited, so that no
/// thread of Swift's cooperative pool (two on a two-core machine, shared by
/// every task of the process) waits with it.
public enum BlockingWork {
    /// Runs `work` on a serial queue of its own and suspends the caller until
    /// it returns, or rethrows what it threw. Serial queues run on
    /// libdispatch's overcommit threads, which are added when others block,
    /// unlike the global concurrent queues', which are capped at the number of cores.
    public static func run<T: Sendable, Failure: Error>(
        _ label: String, _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, Failure>, Never>) in
            DispatchQueue(label: label).async {
                continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
            }
        }
        return try result.get()
    }
}
