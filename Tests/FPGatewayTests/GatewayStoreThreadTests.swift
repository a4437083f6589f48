import FPCore
@testable import FPGateway
@testable import FPStore
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
    /// give up a pool's width at a time, a busy timeout apart, and the read
    /// sent after them would wait at least one such round.
    static let waitingWrites = 4 * poolThreads + 2
    /// How long a write waits for the lock here, instead of the store's 10 s:
    /// the test judges order (the read answers while every write still
    /// waits), and a suite that keeps this test off the CPU for a few
    /// seconds must not let the writes give up first. Under the defect the
    /// read waits until the first writes give up, so it fails after this long.
    static let writeWait: TimeInterval = 90

    enum Answered: Sendable { case read, write }

    @Test func aReadAnswersWhileMoreWritesThanCoresWaitForTheLock() async throws {
        let folder = try makeTemporaryFolder("store-thread")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gateway.sqlite").path
        var config = SQLiteDocumentStore.makeConfiguration()
        config.busyMode = .timeout(Self.writeWait)
        let f = try GatewayFixture(store: SQLiteDocumentStore(writer: DatabasePool(path: path, configuration: config)))
        let alice = f.token("alice")
        _ = try f.store.edit(id: "seed", body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)

        // Another process's writer: holds the write lock until told to let go.
        var lockerConfig = Configuration()
        lockerConfig.allowsUnsafeTransactions = true  // the transaction outlives one access, on purpose
        let locker = try DatabaseQueue(path: path, configuration: lockerConfig)
        try await locker.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }

        try await f.app.test(.live) { client in
            let port = try #require(client.port)
            let (answers, answered) = AsyncStream.makeStream(of: Answered.self)
            let writes = (0..<Self.waitingWrites).map { n in
                Task {
                    defer { answered.yield(.write) }
                    return try await putOnANewConnection(port: port, "/fprint/w\(n)", token: alice, doc("w\(n)", owner: "alice"))
                }
            }
            // Let every write reach the store and wait there for the lock.
            try await Task.sleep(for: .milliseconds(500))
            let read = Task {
                defer { answered.yield(.read) }
                return try await getOnANewConnection(port: port, "/fprint/seed", token: alice)
            }
            // Under the defect the first pool's width of writes gives up
            // (after `writeWait`) before the read answers.
            var first: Answered?
            for await answer in answers { first = answer; break }

            try await locker.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
            var statuses: [HTTPResponse.Status] = []
            for write in writes { statuses.append(try await write.value) }

            #expect(first == .read, "a write gave up before the read answered")
            #expect(try await read.value == .ok)
            // Once the lock is let go, every write is stored.
            #expect(statuses.allSatisfy { $0 == .created }, "writes answered \(statuses)")
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
