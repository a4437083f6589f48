import Foundation

/// Slows password guessing without letting an attacker lock a real user out.
///
/// Every password check takes a turn under two keys: the client address and
/// the (address, user) pair. A failure makes the next turn of both wait
/// longer (`penalty`: at least 500 ms after any failure, doubling to 2 s), so
/// one address guesses at most 2 times a second, however many connections it
/// opens, and a turn more than `maxWait` away is refused (429) instead of
/// queued, which bounds the sleeping requests.
///
/// Two more keys hold guesses spread over many addresses. The user's brake
/// (the name alone) holds addresses that have failed `typos` times or more,
/// with the same penalties. The user's pace spaces every check of the name
/// from an address that has never logged in as it `userSpacing` apart, so
/// one name is checked at most 5 times a second however many addresses
/// guess at it. An address the user has logged in from before is under
/// neither (unless it fails itself): the real user's correct password from
/// there is checked at once, never held behind an attacker's queue.
actor GuessThrottle {
    struct Record {
        var failures: Int
        /// When this key's next attempt may be checked.
        var nextTurn: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
    }

    static let minimumPenalty: Duration = .milliseconds(500)
    /// Failures an address may have before the user's brake holds it.
    static let typos = 3
    static let maxPenalty: Duration = .seconds(2)
    static let maxWait: Duration = .seconds(10)
    /// Failures older than this are forgiven.
    static let memory: Duration = .seconds(15 * 60)
    static let maxRecords = 10_000
    /// Least time between two checks of one name from addresses it has not logged in from.
    static let userSpacing: Duration = .milliseconds(200)

    private var records: [String: Record] = [:]
    /// (address, user) pairs that logged in successfully, and when last.
    private var trusted: [String: ContinuousClock.Instant] = [:]
    private let now: @Sendable () -> ContinuousClock.Instant

    init(now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.now = now
    }

    /// Wait before the check of the attempt after `failures` failures in a
    /// row: none without failures, then 500 ms, doubling from the third up to 2 s.
    static func penalty(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let doublings = min(max(failures - 2, 0), 8)
        return min(minimumPenalty * (1 << doublings), maxPenalty)
    }

    enum Admission: Equatable {
        /// Check the password after waiting this long.
        case wait(Duration)
        /// Too many attempts queued: answer 429, retry after this long.
        case refuse(retryAfter: Duration)
    }

    /// Who guesses: an address, and the name tried (nil: a pasted token, which names nobody).
    struct Attempt: Sendable {
        let client: String
        let user: String?

        var clientKey: String { "client:" + client }
        var pairKey: String? { user.map { "pair:\(client)|\($0)" } }
        var userKey: String? { user.map { "user:" + $0 } }
        var paceKey: String? { user.map { "pace:" + $0 } }
        /// The keys a failure counts against.
        var keys: [String] { [clientKey] + [pairKey, userKey].compactMap { $0 } }
    }

    /// Takes a turn for one attempt; the turn after it is reserved as if
    /// this attempt fails, so parallel guesses queue up.
    func admit(_ attempt: Attempt) -> Admission {
        let t = now()
        forgetOld(at: t)
        let failing = (fresh(attempt.clientKey, at: t)?.failures ?? 0) >= Self.typos
        // The user's brake holds only addresses that have failed before; its
        // pace, only addresses the user has not logged in from.
        var gating = [attempt.clientKey, attempt.pairKey].compactMap { $0 } + (failing ? [attempt.userKey].compactMap { $0 } : [])
        let paced = attempt.pairKey.map { trusted[$0] == nil } ?? false
        if paced, let pace = attempt.paceKey { gating.append(pace) }
        var start = t
        for key in gating { if let r = fresh(key, at: t), r.nextTurn > start { start = r.nextTurn } }
        if start - t > Self.maxWait { return .refuse(retryAfter: start - t) }
        for key in gating {
            var r = fresh(key, at: t) ?? Record(failures: 0, nextTurn: t, lastFailure: t)
            r.nextTurn = start + (key == attempt.paceKey ? Self.userSpacing : Self.penalty(afterFailures: r.failures))
            records[key] = r
        }
        return .wait(start - t)
    }

    /// A failed check: the next turn of each key waits longer. Returns the
    /// address's failure count (for the log).
    @discardableResult
    func failed(_ attempt: Attempt) -> Int {
        let t = now()
        var count = 0
        for key in attempt.keys {
            var r = fresh(key, at: t) ?? Record(failures: 0, nextTurn: t, lastFailure: t)
            r.failures += 1
            r.lastFailure = t
            r.nextTurn = max(r.nextTurn, t + Self.penalty(afterFailures: r.failures))
            records[key] = r
            if key == attempt.clientKey { count = r.failures }
        }
        return count
    }

    /// A successful check clears the address's and the pair's failures (not
    /// the user's: a correct password elsewhere says nothing of the guessers).
    func succeeded(_ attempt: Attempt) {
        records[attempt.clientKey] = nil
        guard let pair = attempt.pairKey else { return }
        records[pair] = nil
        let t = now()
        trusted[pair] = t
        // A flood of successes (one user, many addresses): keep the most recent.
        if trusted.count > Self.maxRecords {
            let kept = trusted.sorted { $0.value > $1.value }.prefix(Self.maxRecords / 2)
            trusted = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
    }

    /// A record whose failures are not yet forgiven.
    private func fresh(_ key: String, at t: ContinuousClock.Instant) -> Record? {
        guard var r = records[key] else { return nil }
        if t - r.lastFailure > Self.memory, r.nextTurn <= t { r.failures = 0 }
        return r
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
