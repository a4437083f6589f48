import FPTestSupport
import Foundation

/// `make bench-abuse`'s login flood: one user who knows their password logs
/// in 10,000 times from 8 threads (the attack grew the credential ledger to
/// 6,331 entries and made every login 13× slower). Printed: how many were
/// let through (the rest: 429), the ledger's size after, the gateway's peak
/// RSS (goal < 300 MB), and another user's login and an unrelated GET,
/// medians before and after (goal: within 2× of before).
func loginFlood(_ gateway: AbuseGateway, logins: Int = 10_000, ledger: String) {
    gateway.resetPeak()
    let loginBefore = medianWall(20) { _ = gateway.login(name: "bob", "battery-staple", from: "127.0.0.3") }
    let getBefore = medianWall(20) { _ = gateway.status(gateway.authorizedGet) }
    let statuses = StatusTally()
    let next = TicketCounter()
    let group = DispatchGroup()
    let started = Date()
    for _ in 0..<8 {
        group.enter()
        Thread.detachNewThread {
            while next.increment() <= logins { statuses.add(gateway.login("correct-horse", from: "127.0.0.1")) }
            group.leave()
        }
    }
    group.wait()
    let elapsed = Date().timeIntervalSince(started)
    let loginAfter = medianWall(20) { _ = gateway.login(name: "bob", "battery-staple", from: "127.0.0.3") }
    let getAfter = medianWall(20) { _ = gateway.status(gateway.authorizedGet) }
    let entries = (try? String(contentsOfFile: ledger, encoding: .utf8))?.components(separatedBy: #""id":"#).count ?? 1
    let size = (try? FileManager.default.attributesOfItem(atPath: ledger)[.size] as? Int) ?? 0
    print(String(format: "login flood: %d correct-password logins of one user from 8 threads in %.1f s: %@; ledger %d entries "
                 + "(%d bytes); gateway peak %.0f MB (goal < 300); another user's login median %.1f -> %.1f ms (%.2f×, goal ≤ 2), "
                 + "a GET %.1f -> %.1f ms (%.2f×, goal ≤ 2)", logins, elapsed, statuses.summary, entries - 1, size, gateway.peakMB,
                 loginBefore * 1000, loginAfter * 1000, loginAfter / loginBefore, getBefore * 1000, getAfter * 1000,
                 getAfter / getBefore))
}

/// The median wall time of `count` runs of `body`.
func medianWall(_ count: Int, _ body: () -> Void) -> Double {
    let times = (0..<count).map { _ in
        let t = Date()
        body()
        return Date().timeIntervalSince(t)
    }.sorted()
    return times[count / 2]
}

/// Numbers several threads take, one each (1, 2, …).
final class TicketCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.withLock { value += 1; return value } }
}
