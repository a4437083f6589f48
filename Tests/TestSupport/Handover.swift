import Foundation

/// One value handed over once by a thread and awaited by tasks: the end of a
/// pipe, the exit of a child. Awaiting holds no thread, so tests that wait on
/// child processes leave Swift's cooperative pool (two threads here) to the
/// in-process gateways of tests running beside them.
public final class Handover<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value?  // guarded by `lock`
    private var waiters: [CheckedContinuation<Value, Never>] = []  // guarded by `lock`

    public init() {}

    /// Hands the value over; later calls are ignored.
    public func fulfil(_ value: Value) {
        let waiting: [CheckedContinuation<Value, Never>] = lock.withLock {
            guard self.value == nil else { return [] }
            self.value = value
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: value) }
    }

    /// The value, once handed over.
    public func value() async -> Value {
        await withCheckedContinuation { (waiter: CheckedContinuation<Value, Never>) in
            let ready: Value? = lock.withLock {
                if let value { return value }
                waiters.append(waiter)
                return nil
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }

    /// The value if it is handed over within `seconds`, else nil.
    public func value(within seconds: Double) async -> Value? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let ready = lock.withLock({ value }) { return ready }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return lock.withLock { value }
    }
}

/// Runs CPU-bound work on a thread of its own and awaits its result, so a
/// long computation (a dataset's evaluation) leaves the cooperative pool to
/// the tests beside it. The thread runs at nice 10: a minute of arithmetic
/// yields the cores to tests that time their answers.
public func onThread<T: Sendable>(_ name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    let done = Handover<Result<T, any Error>>()
    let thread = Thread {
        // Linux keeps the nice value per thread: who = 0 is this thread alone (setpriority(2), BUGS).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        done.fulfil(Result { try work() })
    }
    thread.name = name
    thread.stackSize = 8 << 20
    thread.start()
    return try await done.value().get()
}
