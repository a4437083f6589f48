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

    /// Whether the value has been handed over.
    public var isFulfilled: Bool { lock.withLock { value != nil } }

    /// The value if it has been handed over, without waiting.
    public var current: Value? { lock.withLock { value } }

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

/// A count several tasks or threads add to.
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0  // guarded by `lock`
    public init() {}
    public func increment() { lock.withLock { count += 1 } }
    public var value: Int { lock.withLock { count } }
}
