import Foundation

/// Slows password guessing: every password check (Basic or `/_session`)
/// takes a turn per client address and per user name. A failure makes the
/// next turn of both keys wait longer (`penalty`), so an attacker's rate
/// falls to one guess per `maxPenalty`, however many connections it opens.
/// A turn more than `maxWait` away is refused (429) instead of queued, which
/// bounds the sleeping requests; a real user behind an attacker waits at
/// most `maxPenalty` per attempt and is never locked out.
actor GuessThrottle {
    struct Record {
        var failures: Int
        /// When this key's next attempt may be checked.
        var nextTurn: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
    }

    static let freeFailures = 3
    static let firstPenalty: Duration = .milliseconds(125)
    static let maxPenalty: Duration = .seconds(2)
    static let maxWait: Duration = .seconds(10)
    /// Failures older than this are forgiven.
    static let memory: Duration = .seconds(15 * 60)
    static let maxRecords = 10_000

    private var records: [String: Record] = [:]
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Wait before the check of the attempt after `failures` failures in a row:
    /// none for the first few, then doubling from 125 ms up to 2 s.
    static func penalty(afterFailures failures: Int) -> Duration {
        guard failures >= freeFailures else { return .zero }
        let doublings = min(failures - freeFailures, 8)
        return min(firstPenalty * (1 << doublings), maxPenalty)
    }

    enum Admission: Equatable {
        /// Check the password after waiting this long.
        case wait(Duration)
        /// Too many attempts queued: answer 429, retry after this long.
        case refuse(retryAfter: Duration)
    }

    /// Takes a turn for one attempt under every key; the turn after it is
    /// reserved as if this attempt fails, so parallel guesses queue up.
    func admit(keys: [String]) -> Admission {
        let t = now()
        forgetOld(at: t)
        var start = t
        for key in keys { if let r = records[key], r.nextTurn > start { start = r.nextTurn } }
        if start - t > Self.maxWait { return .refuse(retryAfter: start - t) }
        for key in keys {
            var r = records[key] ?? Record(failures: 0, nextTurn: t, lastFailure: t)
            if t - r.lastFailure > Self.memory { r.failures = 0 }
            r.nextTurn = start + Self.penalty(afterFailures: r.failures)
            records[key] = r
        }
        return .wait(start - t)
    }

    /// A failed check: the next turn of each key waits longer. Returns the
    /// failure count of the first key (for the log).
    @discardableResult
    func failed(keys: [String]) -> Int {
        let t = now()
        var count = 0
        for (n, key) in keys.enumerated() {
            var r = records[key] ?? Record(failures: 0, nextTurn: t, lastFailure: t)
            r.failures += 1
            r.lastFailure = t
            r.nextTurn = max(r.nextTurn, t + Self.penalty(afterFailures: r.failures))
            records[key] = r
            if n == 0 { count = r.failures }
        }
        return count
    }

    /// A successful check clears the keys' failures.
    func succeeded(keys: [String]) {
        for key in keys { records[key] = nil }
    }

    private func forgetOld(at t: ContinuousClock.Instant) {
        guard records.count > Self.maxRecords / 2 else { return }
        records = records.filter { t - $0.value.lastFailure < Self.memory || $0.value.nextTurn > t }
        // Still too many (a flood of fresh keys): keep the most recent.
        if records.count > Self.maxRecords {
            let kept = records.sorted { $0.value.lastFailure > $1.value.lastFailure }.prefix(Self.maxRecords / 2)
            records = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
    }
}
