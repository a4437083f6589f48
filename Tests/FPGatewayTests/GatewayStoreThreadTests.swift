import FPCore
@testable import FPGateway
import FPStore
import FPTestSupport
import Foundation
import GRDB
import Hummingbird
import FPHTTPTestSupport
import NIOCore
import Testing

/// Store work runs off Swift's cooperative pool (`onStoreThread`): writes
/// that wait for SQLite's write lock must not hold up a read, which the WAL
/// answers at once. Before, each waiting write held one of the pool's
/// threads (two on a two-core machine) for up to the busy timeout (10 s).
@Suite struct GatewayStoreThreadTests {
    static let poolThreads = ProcessInfo.processInfo.activeProcessorCount
    /// Four writes per pool thread: with store work on the pool they would
    /// give up a pool's width at a time, 10 s apart, and the read sent after
    /// them would wait at least three such rounds.
    static let waitingWrites = 4 * poolThreads + 2
    /// Under that defect the read takes ≥ 30 s; fixed, it takes what the
    /// machine takes to schedule it (milliseconds quiet, seconds when the
    /// whole suite's CPU-bound tests hold the pool).
    static let readBound: Duration = .seconds(25)

    @Test func aReadAnswersWhileMoreWritesThanCoresWaitForTheLock() async throws {
        let folder = try makeTemporaryFolder("store-thread")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gateway.sqlite").path
        let f = try GatewayFixture(path: path)
        let alice = f.token("alice")
        _ = try f.store.edit(id: "seed", body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)

        // Another process's writer: holds the write lock until told to let go.
        var lockerConfig = Configuration()
        lockerConfig.allowsUnsafeTransactions = true  // the transaction outlives one access, on purpose
        let locker = try DatabaseQueue(path: path, configuration: lockerConfig)
        try await locker.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }

        try await f.app.test(.live) { client in
            let port = try #require(client.port)
            let answered = Counter()
            let writes = (0..<Self.waitingWrites).map { n in
                Task {
                    defer { answered.increment() }
                    return try await putOnANewConnection(port: port, "/fprint/w\(n)", token: alice, doc("w\(n)", owner: "alice"))
                }
            }
            // Let every write reach the store and wait there for the lock.
            try await Task.sleep(for: .milliseconds(500))

            let sent = ContinuousClock.now
            let read = try await getOnANewConnection(port: port, "/fprint/seed", token: alice)
            let readTook = ContinuousClock.now - sent
            let writesAnsweredBeforeTheRead = answered.value

            try await locker.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
            var statuses: [HTTPResponse.Status] = []
            for write in writes { statuses.append(try await write.value) }

            #expect(read == .ok)
            // The read did not wait for the writes to give up. Not counted in
            // writes: fixed, they all wait at once and give up together after
            // 10 s, so a machine that keeps this test's read from being
            // scheduled for 10 s sees every write give up first; under the
            // defect they give up in rounds, and the read comes after them.
            #expect(readTook < Self.readBound,
                    "the read took \(readTook); \(writesAnsweredBeforeTheRead) of \(Self.waitingWrites) writes gave up before it")
            // Each write is stored once the lock is let go, or, where a busy
            // machine kept this test past the 10 s busy timeout, answered
            // with a server error and left nothing behind.
            #expect(statuses.allSatisfy { $0 == .created || $0.code >= 500 }, "writes answered \(statuses)")
            #expect(try f.store.count() == statuses.filter { $0 == .created }.count + 1)
        }
    }
}

/// A GET on a connection of its own.
func getOnANewConnection(port: Int, _ uri: String, token: String) async throws -> HTTPResponse.Status {
    try await onANewConnection(port: port) { other in
        try await other.execute(uri: uri, method: .get, headers: [.authorization: "Bearer \(token)"]).status
    }
}
