import FPCore
import FPNet
import Foundation
import Testing

@testable import FPSync

/// A server that is up but busy (503 or 429 with Retry-After, as `fprint gateway` answers
/// when many collectors push at once) is waited for, not given up on after a few seconds.
@Suite struct BusyServerTests {
    /// Answers `busy` requests with `status` and Retry-After: `after`, then 200.
    static func remote(busy: Int, status: Int = 503, after: String? = "2", policy: RetryPolicy,
                       delays: DelayLog) -> (RemoteDatabase, ScriptedTransport) {
        let count = Counter()
        let transport = ScriptedTransport { _ in
            guard count.next() <= busy else { return jsonResponse(200, ["db_name": "db"]) }
            var headers: HTTPHeaders = ["Content-Type": "application/json"]
            if let after { headers["Retry-After"] = after }
            return jsonResponse(status, ["error": "service_unavailable", "reason": "busy"], headers: headers)
        }
        return (RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: transport, credentials: .none, retry: policy,
                               sleep: { delays.add($0) }), transport)
    }

    @Test func aBusyServerIsAskedAgainAfterTheTimeItNamesWithoutSpendingAttempts() async throws {
        let delays = DelayLog()
        // Two attempts only, yet six busy answers in a row are waited through.
        let (remote, transport) = Self.remote(busy: 6, policy: RetryPolicy(attempts: 2, busyPatience: 60), delays: delays)
        #expect(try await remote.json(.get, [])["db_name"] == "db")
        #expect(transport.requests.count == 7)
        // Each wait is the named 2 s and up to half as much again (clients turned away together spread out).
        #expect(delays.values.count == 6 && delays.values.allSatisfy { $0 >= 2 && $0 < 3 }, "\(delays.values)")
        // 429 with Retry-After alike.
        let (limited, _) = Self.remote(busy: 1, status: 429, policy: RetryPolicy(attempts: 1), delays: DelayLog())
        #expect(try await limited.json(.get, [])["db_name"] == "db")
    }

    @Test func patienceEndsAndTheUsualRetriesDecide() async throws {
        let delays = DelayLog()
        let (remote, transport) = Self.remote(busy: .max, after: "10",
                                              policy: RetryPolicy(attempts: 2, initialDelay: 0.1, maxDelay: 0.1, busyPatience: 25),
                                              delays: delays)
        await #expect(throws: SyncError.self) { try await remote.json(.get, []) }
        let busyWaits = delays.values.filter { $0 >= 10 }
        // At most 25 s of named waits (each 10 s asked), then the two ordinary attempts.
        #expect((1...2).contains(busyWaits.count) && busyWaits.reduce(0, +) <= 25 + 5 * Double(busyWaits.count))
        #expect(transport.requests.count == busyWaits.count + 2)
        #expect(delays.values.filter { $0 < 10 } == [0.1])
    }

    @Test func withoutRetryAfterNothingChanges() async throws {
        // 429 without Retry-After is an answer, not a wait; 503 without it is an ordinary failure.
        let (limited, transport) = Self.remote(busy: 1, status: 429, after: nil, policy: RetryPolicy(attempts: 3), delays: DelayLog())
        _ = try? await limited.json(.get, [])
        #expect(transport.requests.count == 1)
        let delays = DelayLog()
        let (unavailable, t2) = Self.remote(busy: .max, after: "soon", policy: RetryPolicy(attempts: 3, initialDelay: 0.1, maxDelay: 1),
                                            delays: delays)
        await #expect(throws: SyncError.self) { try await unavailable.json(.get, []) }
        #expect(t2.requests.count == 3 && delays.values == [0.1, 0.2])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.withLock { n += 1; return n } }
}
