import Foundation

/// The server's bounds: whatever a client asks for is clamped to these.
public struct ProbeLimits: Sendable {
    /// Longest transfer (and UDP train) in seconds, a direction.
    public var maxSeconds: Double = 10
    /// Most bytes a direction.
    public var maxBytes: Int = 100_000_000
    /// Most datagrams of a train.
    public var maxDatagrams: Int = 5000
    /// Operations a client address may start a minute.
    public var perClientPerMinute: Int = 30
    /// Operations of one client address at once.
    public var perClientAtOnce: Int = 2
    /// Open probe connections at once, all clients.
    public var maxConnections: Int = 32

    public init() {}
}

/// Per-client admission: a sliding one-minute window and a concurrency cap.
final class ProbeRateLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private var started: [String: [Double]] = [:]
    private var running: [String: Int] = [:]
    private let limits: ProbeLimits

    init(limits: ProbeLimits) { self.limits = limits }

    /// Nil when admitted (call `finished` later), else the seconds to wait.
    func admit(_ client: String, now: Double = Date().timeIntervalSince1970) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        var times = started[client, default: []].filter { now - $0 < 60 }
        if times.count >= limits.perClientPerMinute {
            started[client] = times
            return max(1, Int((60 - (now - times[0])).rounded(.up)))
        }
        if running[client, default: 0] >= limits.perClientAtOnce { return 1 }
        times.append(now)
        started[client] = times
        running[client, default: 0] += 1
        return nil
    }

    func finished(_ client: String) {
        lock.lock()
        defer { lock.unlock() }
        running[client, default: 1] -= 1
        if running[client] == 0 { running[client] = nil }
    }
}

/// One admitted operation's place in the limiter, given back once: before
/// the operation's last answer (the client reads it and may start its next
/// operation at once, which a place still held would refuse), or at the end.
final class ProbeSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var held = true  // guarded by `lock`
    private let limiter: ProbeRateLimiter
    private let client: String

    init(_ limiter: ProbeRateLimiter, client: String) {
        self.limiter = limiter
        self.client = client
    }

    func release() {
        let wasHeld = lock.withLock { () -> Bool in
            defer { held = false }
            return held
        }
        if wasHeld { limiter.finished(client) }
    }
}
