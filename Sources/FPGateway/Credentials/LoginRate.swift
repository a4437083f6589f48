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
        let perSecond = 1 / (Double(Self.interval.components.seconds) + Double(Self.interval.components.attoseconds) / 1e18)
        return buckets.withLock { buckets in
            var bucket = buckets[user] ?? Bucket(tokens: Double(Self.burst), updated: t)
            let elapsed = t - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(Double(Self.burst), bucket.tokens + seconds * perSecond)
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

/// A number several requests read and set at once (which users-file reading the ledger has seen).
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Sets it; the number it held.
    func exchange(_ new: Int) -> Int { value.exchange(new, ordering: .acquiringAndReleasing) }
    func store(_ new: Int) { value.store(new, ordering: .releasing) }
}

/// Whether a token issued for a user is token-only: the issuer says so for
/// a user without a users-file line, never for one with one. Where there
/// is no users file at all, every token is (nobody can be removed from one).
package enum TokenOnlyRule {
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    package static func decide(user: String, asked: Bool, listed: Bool, usersFileKnown: Bool) throws(Refusal) -> Bool {
        if listed {
            guard !asked else {
                throw Refusal(description: "\(user) is in the users file: a token of theirs ends when their line is removed, "
                              + "so it cannot be token-only")
            }
            return false
        }
        guard asked || !usersFileKnown else {
            throw Refusal(description: "\(user) is not in the users file: add them there, or issue a token-only token "
                          + "(it lives without a users-file line until it expires or is revoked)")
        }
        return true
    }
}
