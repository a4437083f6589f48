import Foundation

/// The one clock of a measurement: every sample's `time` is ms on it.
public protocol MeasurementClock: Sendable {
    /// True when simulated time runs as fast as possible (recorded in the document).
    var isVirtual: Bool { get }
    /// The wall-clock instant of ms 0.
    var startDate: Date { get }
    /// Milliseconds elapsed since the start.
    func elapsedMs() -> Int
    /// Waits until the clock reads `ms` (a virtual clock just jumps there).
    func sleep(untilMs ms: Int) async throws
}

extension MeasurementClock {
    public func wallTime(atMs ms: Int) -> Date { startDate.addingTimeInterval(Double(ms) / 1000) }
}

/// Real time on the monotonic clock (immune to wall-clock steps).
public struct MonotonicClock: MeasurementClock {
    public let isVirtual = false
    public let startDate: Date
    private let startNanos: UInt64

    public init() {
        startDate = Date()
        startNanos = DispatchTime.now().uptimeNanoseconds
    }

    public func elapsedMs() -> Int { Int((DispatchTime.now().uptimeNanoseconds - startNanos) / 1_000_000) }

    public func sleep(untilMs ms: Int) async throws {
        let remaining = ms - elapsedMs()
        if remaining > 0 { try await Task.sleep(nanoseconds: UInt64(remaining) * 1_000_000) }
    }
}

/// Simulated time that advances only when slept on: for tests and fast demos.
public final class VirtualClock: MeasurementClock, @unchecked Sendable {
    public let isVirtual = true
    public let startDate: Date
    private let lock = NSLock()
    private var now = 0
    /// When `sleep` last let other tasks run (uptime ns).
    private var lastYieldNs: UInt64 = 0

    public init(startDate: Date = Date()) { self.startDate = startDate }

    public func elapsedMs() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return now
    }

    /// Lets other tasks run at most every 2 ms of real time, not at every
    /// step: a yield wakes a pool thread (a futex and a task switch each), which
    /// was a sixth of a fast replay's time at 10 steps a simulated second.
    public func sleep(untilMs ms: Int) async throws {
        try Task.checkCancellation()
        let yieldNow: Bool = lock.withLock {
            now = max(now, ms)
            let realNs = DispatchTime.now().uptimeNanoseconds
            guard realNs &- lastYieldNs >= 2_000_000 else { return false }
            lastYieldNs = realNs
            return true
        }
        if yieldNow { await Task.yield() }
    }
}
