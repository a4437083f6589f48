import FPCore
import FPNet
import FPStore
@testable import FPSync
import Foundation
import Testing

/// A push batch holds about `BatchLimits.batchBytes` of revision text.
struct PushBatchSizeTests {
    /// Three batches are in flight during a push: large documents make
    /// batches of fewer changes, so what a push holds stays about the same.
    @Test func largeDocumentsMakeSmallerBatches() async throws {
        let transport = gatewayLackingEverything()
        let store = try SQLiteDocumentStore.inMemory()
        let large = String(repeating: "x", count: 10_000)
        try store.insert((0..<30).map { NewDocument(id: String(format: "d%02d", $0), body: body(owner: "alice", note: large)) })
        let remote = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: transport, credentials: .none)
        let limits = BatchLimits(count: 20, batchBytes: 25_000)
        let report = try await Replicator(store: store, remote: remote, limits: limits, userID: "alice").push()
        #expect(report.written == 30)
        let asked = transport.requests.filter { $0.url.path == "/db/_revs_diff" }.map {
            (try? CanonicalJSON.parse($0.body ?? Data()))?.objectValue?.count ?? 0
        }
        // The first batch knows no sizes yet; then about 25 KB of ~10 KB documents each.
        #expect(asked.first == 20)
        #expect(asked.dropFirst().allSatisfy { $0 == 2 })
        #expect(asked.reduce(0, +) == 30)
    }

    @Test func batchSizeFollowsTheDocumentsSentSoFar() {
        let limits = BatchLimits(count: 500, batchBytes: 2 << 20)
        var cursor = PushCursor(session: "s", since: 0, retry: [], damaged: [])
        #expect(cursor.nextLimit(limits, first: 100) == 100)
        cursor.prepared = 1
        #expect(cursor.nextLimit(limits, first: 100) == 500)  // nothing sent yet: no size known
        (cursor.sentCount, cursor.sentBytes) = (100, 100 * 20_000)
        #expect(cursor.nextLimit(limits, first: 100) == (2 << 20) / 20_000)
        (cursor.sentCount, cursor.sentBytes) = (100, 100 * 500)
        #expect(cursor.nextLimit(limits, first: 100) == 500)
        (cursor.sentCount, cursor.sentBytes) = (1, 50 << 20)
        #expect(cursor.nextLimit(limits, first: 100) == 1)
    }
}
