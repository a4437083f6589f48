import FPCore
@testable import FPGateway
import FPStore
import FPTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Store work runs off Swift's cooperative pool (`onStoreThread`): writes
/// that wait for SQLite's write lock must not hold up a read, which the WAL
/// answers at once. Before, each waiting write held one of the pool's
/// threads (two on a two-core machine) for up to the busy timeout (10 s).
@Suite struct GatewayStoreThreadTests {
    static let waitingWrites = 2 * ProcessInfo.processInfo.activeProcessorCount + 2

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

            let read = try await getOnANewConnection(port: port, "/fprint/seed", token: alice)
            let writesAnsweredBeforeTheRead = answered.value

            try await locker.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
            var statuses: [HTTPResponse.Status] = []
            for write in writes { statuses.append(try await write.value) }

            #expect(read == .ok)
            // The read answered while the writes still waited for the lock:
            // with the pool's threads held by them, it only answered once all
            // but the last one or two had given up (10 s busy timeout each,
            // queued two at a time), or never. On a quiet machine none has
            // given up; at load 30 one write's 10 s ran out before the read was
            // answered, which is the machine, not the gateway.
            #expect(writesAnsweredBeforeTheRead < Self.waitingWrites / 2,
                    "\(writesAnsweredBeforeTheRead) of \(Self.waitingWrites) writes gave up before the read answered")
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
        try await other.get(uri, headers: [.authorization: "Bearer \(token)"]).status
    }
}
