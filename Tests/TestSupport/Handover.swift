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

/// Runs CPU-bound work on a thread of its own and awaits its result, so a
/// long computation (a dataset's evaluation) leaves the cooperative pool to
/// the tests beside it. The thread runs at nice 10: a minute of arithmetic
/// yields the cores to tests that time their answers. Made with pthreads, so
/// a thread that cannot be made is an error, not a test waiting forever
/// (Foundation's `Thread.start` does not report failure).
public func onThread<T: Sendable>(_ name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    let done = Handover<Result<T, any Error>>()
    let body = ThreadBody {
        // Linux keeps the nice value per thread: who = 0 is this thread alone (setpriority(2), BUGS).
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        done.fulfil(Result { try work() })
    }
    let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
    pthread_attr_init(attributes)
    defer {
        pthread_attr_destroy(attributes)
        attributes.deallocate()
    }
    pthread_attr_setstacksize(attributes, 8 << 20)
    pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
    let context = Unmanaged.passRetained(body)
    var thread: pthread_t = 0
    let created = pthread_create(&thread, attributes, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, context.toOpaque())
    guard created == 0 else {
        context.release()
        throw ThreadNotMade(name: name, code: created)
    }
    return try await done.value().get()
}

private final class ThreadBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// `pthread_create` refused (its error number).
public struct ThreadNotMade: Error, CustomStringConvertible {
    public let name: String
    public let code: Int32
    public var description: String { "cannot start thread \(name): \(String(cString: strerror(code)))" }
}
