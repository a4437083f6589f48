@testable import FPGateway
import Foundation
import Testing

/// The login throttle with a hand-moved clock: an attacker's guesses slow to
/// two a second per address, while the real user's correct password from
/// their own address is never refused or held behind the attacker's.
@Suite struct GuessThrottleTests {
    let clock = ManualInstant()
    var throttle: GuessThrottle { GuessThrottle(now: { [clock] in clock.now }) }

    /// Fails `attempt` `times`, each at its turn; returns the waits.
    func guess(_ throttle: GuessThrottle, _ attempt: GuessThrottle.Attempt, times: Int) async -> [Duration] {
        var waits: [Duration] = []
        for _ in 0..<times {
            guard case .wait(let wait) = await throttle.admit(attempt) else { Issue.record("refused"); return waits }
            waits.append(wait)
            clock.advance(wait)
            await throttle.failed(attempt)
        }
        return waits
    }

    @Test func oneAddressGuessesAtMostTwiceASecond() async {
        let throttle = self.throttle
        let attacker = GuessThrottle.Attempt(client: "10.0.0.9", user: "carol")
        let waits = await guess(throttle, attacker, times: 20)
        #expect(waits[0] == .zero)
        #expect(waits.dropFirst().allSatisfy { $0 >= .milliseconds(500) }, "\(waits)")
        #expect(waits.max()! <= GuessThrottle.maxPenalty)
        // Other names from the same address share its pace.
        guard case .wait(let next) = await throttle.admit(.init(client: "10.0.0.9", user: "dave")) else {
            Issue.record("refused")
            return
        }
        #expect(next >= .milliseconds(500))
        // Parallel guesses queue behind each other, and past 10 s are refused.
        let queued = await (1...10).asyncMap { _ in await throttle.admit(attacker) }
        #expect(queued.contains { if case .refuse = $0 { true } else { false } })
    }

    @Test func theRealUsersCorrectPasswordIsNeverHeldBehindAnAttacker() async {
        let throttle = self.throttle
        // The real user has logged in from their address before.
        let victim = GuessThrottle.Attempt(client: "127.0.0.1", user: "alice")
        #expect(await throttle.admit(victim) == .wait(.zero))
        await throttle.succeeded(victim)
        // One attacker address, far into its penalties, and 200 more with three failures each.
        _ = await guess(throttle, .init(client: "127.0.0.2", user: "alice"), times: 40)
        for n in 0..<200 { _ = await guess(throttle, .init(client: "10.1.\(n / 250).\(n % 250)", user: "alice"), times: 3) }
        // The real user, from that address: checked at once.
        #expect(await throttle.admit(victim) == .wait(.zero))
        await throttle.succeeded(victim)
        // Two typos of their own change nothing.
        _ = await guess(throttle, victim, times: 2)
        guard case .wait(let wait) = await throttle.admit(victim) else { Issue.record("refused after two typos"); return }
        #expect(wait <= .milliseconds(500), "\(wait)")
    }

    /// Addresses that keep failing are held behind the user's brake: guesses
    /// spread over many addresses still slow to one per 2 s for that name.
    @Test func guessesSpreadOverAddressesAreBrakedPerUser() async {
        let throttle = self.throttle
        for n in 0..<10 { _ = await guess(throttle, .init(client: "10.2.0.\(n)", user: "alice"), times: 3) }
        var waits: [Duration] = []
        for n in 0..<10 {
            guard case .wait(let wait) = await throttle.admit(.init(client: "10.2.0.\(n)", user: "alice")) else { continue }
            waits.append(wait)
        }
        // Queued one after another behind the user's turn.
        #expect(waits.sorted() == waits, "\(waits)")
        #expect((waits.last ?? .zero) >= .seconds(9), "\(waits)")
    }

    /// Each of 200 addresses tries the name once, all at the same instant:
    /// their checks are spaced 200 ms apart (5 a second), the queue past
    /// 10 s is refused, and an address the user logged in from is not in it.
    @Test func oneNameIsCheckedAtMostFiveTimesASecondFromNewAddresses() async {
        let throttle = self.throttle
        let home = GuessThrottle.Attempt(client: "10.3.9.9", user: "alice")
        _ = await throttle.admit(home)
        await throttle.succeeded(home)
        var waits: [Duration] = []
        var refused = 0
        for n in 0..<200 {
            switch await throttle.admit(.init(client: "10.3.\(n / 250).\(n % 250)", user: "alice")) {
            case .wait(let wait): waits.append(wait)
            case .refuse: refused += 1
            }
        }
        // The home address's own first login (before it was known) took the first turn: 0.2 s … 10 s.
        #expect(waits.count == 50 && refused == 150, "\(waits.count) admitted, \(refused) refused")
        #expect(zip(waits, waits.dropFirst()).allSatisfy { $1 - $0 == GuessThrottle.userSpacing }, "\(waits.prefix(5))")
        #expect(await throttle.admit(home) == .wait(.zero))
        // Another name is not held by alice's pace.
        #expect(await throttle.admit(.init(client: "10.4.0.1", user: "bob")) == .wait(.zero))
    }

    @Test func aSuccessClearsTheAddressAndThePair() async {
        let throttle = self.throttle
        let user = GuessThrottle.Attempt(client: "10.0.0.7", user: "carol")
        _ = await guess(throttle, user, times: 5)
        await throttle.succeeded(user)
        #expect(await throttle.admit(user) == .wait(.zero))
    }
}
