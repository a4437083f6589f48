import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// The replicator over libcurl against the real gateway on a loopback port.
@Suite(.serialized) struct LoopbackSyncTests {
    @Test func firstSyncIncrementalAndBothDirections() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let alice = try SQLiteDocumentStore.inMemory()
        let bob = try SQLiteDocumentStore.inMemory()
        try alice.insert((0..<45).map { NewDocument(id: "a\($0)", body: body(owner: "-", note: "\($0)")) })
        try bob.insert((0..<7).map { NewDocument(id: "b\($0)", body: body(owner: "bob")) })
        let ra = gateway.replicator(alice, user: "alice")
        let rb = gateway.replicator(bob, user: "bob")

        // First sync: alice pushes 45 in batches of 20, signed as alice
        let push = try await ra.push()
        #expect(push.written == 45 && push.signed == 45 && push.rejected.isEmpty)
        #expect(try gateway.store.count() == 45)
        #expect(try gateway.store.document(id: "a3", includeDeleted: false)?.body["couchbase_sync_gateway_id"] == "alice")
        #expect(try alice.list(ListQuery(unsyncedOnly: true)).isEmpty)

        // Bob pushes his and pulls alice's
        _ = try await rb.push()
        let pull = try await rb.pull()
        #expect(pull.written == 52 - 7 || pull.written == 45)
        #expect(try bob.count() == 52)
        #expect(try snapshot(bob).filter { $0.key.hasPrefix("a") } == snapshot(alice))

        // Incremental: nothing new → nothing sent or received
        let again = try await ra.push()
        #expect(again.examined == 0 && again.written == 0)
        let pullAgain = try await rb.pull()
        #expect(pullAgain.written == 0)

        // One edit on alice's side travels alone
        let doc = try #require(try alice.document(id: "a1", includeDeleted: false))
        var edited = doc.body
        edited["note"] = "edited"
        try alice.update(id: "a1", body: edited, expected: doc.rev)
        let one = try await ra.push()
        #expect(one.examined == 1 && one.written == 1)
        let onePull = try await rb.pull()
        #expect(onePull.written == 1)
        #expect(try bob.document(id: "a1", includeDeleted: false)?.body["note"] == "edited")
        #expect(try bob.document(id: "a1", includeDeleted: false)?.rev.generation == 3)
    }

    @Test func conflictsFromTwoClientsAreKeptAndConverge() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let laptop = try SQLiteDocumentStore.inMemory()
        let tablet = try SQLiteDocumentStore.inMemory()
        try laptop.insert([NewDocument(id: "m1", body: body(owner: "alice"))])
        let rl = gateway.replicator(laptop, user: "alice")
        let rt = gateway.replicator(tablet, user: "alice")
        _ = try await rl.push()
        _ = try await rt.pull()

        // Both edit the same revision
        for (store, note) in [(laptop, "laptop"), (tablet, "tablet")] {
            let doc = try #require(try store.document(id: "m1", includeDeleted: false))
            var b = doc.body
            b["note"] = .string(note)
            try store.update(id: "m1", body: b, expected: doc.rev)
        }
        for r in [rl, rt, rl, rt] {
            _ = try await r.push()
            _ = try await r.pull()
        }
        // Same winner everywhere, the loser kept as a conflict
        let winners = try [laptop, tablet, gateway.store].map { try #require(try $0.document(id: "m1", includeDeleted: false)).rev }
        #expect(Set(winners).count == 1)
        for store in [laptop, tablet, gateway.store] {
            #expect(try store.conflicts(id: "m1").count == 1)
            #expect(try store.leaves(id: "m1").count == 2)
        }
        #expect(try snapshot(laptop) == snapshot(tablet))
        #expect(try snapshot(laptop) == snapshot(gateway.store))
    }

    @Test func deletionsReplicate() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let a = try SQLiteDocumentStore.inMemory()
        let b = try SQLiteDocumentStore.inMemory()
        try a.insert([NewDocument(id: "keep", body: body(owner: "alice")), NewDocument(id: "drop", body: body(owner: "alice"))])
        let ra = gateway.replicator(a, user: "alice")
        let rb = gateway.replicator(b, user: "alice")
        _ = try await ra.push()
        _ = try await rb.pull()
        // Deleted on b (an edit to a tombstone: the store's own delete refuses synced documents)
        let doc = try #require(try b.document(id: "drop", includeDeleted: false))
        try b.edit(id: "drop", body: [:], parent: doc.rev, deleted: true)
        _ = try await rb.push()
        _ = try await ra.pull()
        #expect(try a.document(id: "drop", includeDeleted: false) == nil)
        #expect(try a.document(id: "drop", includeDeleted: true)?.deleted == true)
        #expect(try a.count() == 1)
        #expect(try snapshot(a) == snapshot(b))
    }

    @Test func overwritingAnotherUsersDocumentIsRefused() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let alice = try SQLiteDocumentStore.inMemory()
        let mallory = try SQLiteDocumentStore.inMemory()
        try alice.insert([NewDocument(id: "m1", body: body(owner: "alice"))])
        _ = try await gateway.replicator(alice, user: "alice").push()
        let rm = gateway.replicator(mallory, user: "mallory")
        _ = try await rm.pull()
        let doc = try #require(try mallory.document(id: "m1", includeDeleted: false))
        var b = doc.body
        b["couchbase_sync_gateway_id"] = "mallory"
        try mallory.update(id: "m1", body: b, expected: doc.rev)
        let report = try await rm.push()
        #expect(report.rejected.count == 1)
        #expect(report.rejected.first?.contains("belongs to another user") == true)
        #expect(try gateway.store.document(id: "m1", includeDeleted: false)?.rev == doc.rev)
        #expect(try mallory.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["m1"])
    }

    @Test func expiredAndForgedTokensAreRejected() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert([NewDocument(id: "m1", body: body(owner: "alice"))])
        let expired = gateway.authority.issue(user: "alice", admin: false, ttlSeconds: 5, now: Date(timeIntervalSinceNow: -60))
        let forged = TokenAuthority(secret: Data("not-the-gateway-secret-at-all-xx".utf8)).issue(user: "alice", admin: true, ttlSeconds: 3600)
        for token in [expired, forged] {
            let r = gateway.replicator(store, user: "alice", token: token)
            do throws(SyncError) {
                _ = try await r.push()
                Issue.record("push with a bad token succeeded")
            } catch {
                guard case .authRejected(let why) = error else { Issue.record("\(error)"); continue }
                #expect(!why.contains(token))
            }
        }
        #expect(try gateway.store.count() == 0)
        #expect(try store.list(ListQuery(unsyncedOnly: true)).count == 1)
    }

    @Test func aWipedDatabaseGetsANewReplicationID() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let first = try SQLiteDocumentStore.inMemory()
        let second = try SQLiteDocumentStore.inMemory()
        let token = gateway.token("alice")
        let id1 = try await gateway.replicator(first, user: "alice", token: token).replicationID(.pull)
        let id2 = try await gateway.replicator(second, user: "alice", token: token).replicationID(.pull)
        #expect(id1 != id2)
        // The token is not part of it: a new token keeps the checkpoints
        #expect(try await gateway.replicator(first, user: "alice", token: gateway.token("alice", admin: true)).replicationID(.pull) == id1)
        #expect(id1.count == 32)
    }
}
