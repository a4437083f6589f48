import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// Sync through a proxy that cuts connections at random points (mid-request
/// and mid-response): re-running sync until it completes leaves the gateway
/// and both clients with identical sets, nothing duplicated, nothing lost.
@Suite(.serialized) struct CutConnectionTests {
    @Test func syncThroughAConnectionCuttingProxyConverges() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let proxy = try CuttingProxy(upstreamPort: gateway.running.port, cutProbability: 0.8, maxCutBytes: 8_000, seed: 20261122)
        defer { proxy.stop() }

        let alice = try SQLiteDocumentStore.inMemory()
        let bob = try SQLiteDocumentStore.inMemory()
        try alice.insert((0..<120).map { NewDocument(id: "a\($0)", body: body(owner: "-", note: "\($0)")) })
        try bob.insert((0..<30).map { NewDocument(id: "b\($0)", body: body(owner: "bob")) })

        func throughProxy(_ store: SQLiteDocumentStore, _ user: String) -> Replicator {
            let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:\(proxy.port)/fprint")!, transport: CurlHTTPTransport(),
                                        credentials: .bearer(gateway.token(user)),
                                        retry: RetryPolicy(attempts: 3, initialDelay: 0.01, maxDelay: 0.05))
            return Replicator(store: store, remote: remote, limits: BatchLimits(count: 25), userID: user)
        }
        /// Runs one direction until a run completes; a cut may only ever end a run as `unreachable`.
        func untilComplete(_ name: String, _ run: @Sendable () async throws -> SyncReport) async throws -> Int {
            for attempt in 1...60 {
                do {
                    _ = try await run()
                    return attempt
                } catch let error as SyncError {
                    guard case .unreachable = error else {
                        Issue.record("\(name): a cut connection ended the sync as \(error)")
                        throw error
                    }
                }
            }
            Issue.record("\(name) never completed through the proxy")
            throw CancellationError()
        }

        let ra = throughProxy(alice, "alice")
        let rb = throughProxy(bob, "bob")
        var runs = 0
        runs += try await untilComplete("alice push") { try await ra.push() }
        runs += try await untilComplete("bob push") { try await rb.push() }
        runs += try await untilComplete("bob pull") { try await rb.pull() }
        runs += try await untilComplete("alice pull") { try await ra.pull() }

        // The proxy did cut, many times, at varied points
        let (connections, cuts) = proxy.counts
        #expect(cuts >= 5, "only \(cuts) cuts in \(connections) connections: the test proved nothing")

        // Identical sets everywhere, all 150 documents, no conflicts (a re-sent
        // revision never became a second leaf), each of alice's signed exactly once.
        let onGateway = try snapshot(gateway.store)
        #expect(onGateway.count == 150)
        #expect(try snapshot(alice) == onGateway)
        #expect(try snapshot(bob) == onGateway)
        #expect(onGateway.values.allSatisfy { $0.hasSuffix(" leaves:1") })
        let generations = try (0..<120).map { try gateway.store.document(id: "a\($0)", includeDeleted: false)?.rev.generation }
        #expect(generations.allSatisfy { $0 == 2 })
        #expect(try gateway.store.document(id: "a7", includeDeleted: false)?.body["couchbase_sync_gateway_id"] == "alice")
        #expect(try alice.list(ListQuery(unsyncedOnly: true)).isEmpty)
        #expect(try bob.list(ListQuery(unsyncedOnly: true)).isEmpty)

        // And a clean incremental sync afterwards finds nothing to do
        let direct = gateway.replicator(alice, user: "alice")
        let again = try await direct.push()
        #expect(again.written == 0)
        let pullAgain = try await direct.pull()
        #expect(pullAgain.written == 0)
        print("cutting proxy: \(cuts) cuts in \(connections) connections, \(runs) sync runs for 4 directions")
    }
}
