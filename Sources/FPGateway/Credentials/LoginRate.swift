import Foundation
import Synchronization

/// Successful logins of one user: a burst of `burst`, then one every
/// `interval`. A login is checked against the password first, so only
/// someone who knows it spends the user's logins; a script that logs in
/// thousands of times gets 429 instead of filling the ledger.
final class LoginRate: Sendable {
    static let burst = 30
    static let interval: Duration = .seconds(1)
    /// Users remembered at once; past it, the ones whose bucket is full are forgotten.
    static let maxUsers = 10_000

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Takes one login of `user`; nil if allowed, else whole seconds to wait.
    func take(_ user: String) -> Int? {
        let t = now()
        let perSecond = 1 / (Self.interval / .seconds(1))
        return buckets.withLock { buckets in
            var bucket = buckets[user] ?? Bucket(tokens: Double(Self.burst), updated: t)
            bucket.tokens = min(Double(Self.burst), bucket.tokens + (t - bucket.updated) / .seconds(1) * perSecond)
            bucket.updated = t
            guard bucket.tokens >= 1 else {
                buckets[user] = bucket
                return Int(((1 - bucket.tokens) / perSecond).rounded(.up))
            }
            bucket.tokens -= 1
            buckets[user] = bucket
            if buckets.count > Self.maxUsers {
                buckets = buckets.filter { $0.value.tokens < Double(Self.burst) - 1 }
            }
            return nil
        }
    }
}
