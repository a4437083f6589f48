import FPCore
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// A peer that refuses what `refuse` says, per document, and stores the rest;
/// `_local` checkpoints are kept so a second push resumes after the first.
final class RefusingPeer: @unchecked Sendable {
    private let lock = NSLock()
    private var checkpoint: JSONValue?
    private var stored: Set<String> = []
    /// id → how the peer refuses it (nil: accepted).
    var refuse: [String: Refusing] = [:]

    enum Refusing {
        /// CouchDB's answer to a body over `max_document_size`: 413 for the request.
        case tooLarge
        /// Sync Gateway's per-document entry in the `_bulk_docs` answer.
        case forbidden(String)
    }

    var storedIDs: Set<String> { lock.withLock { stored } }

    lazy var transport = ScriptedTransport { [unowned self] request in
        switch (request.method, request.url.path) {
        case (.post, "/db/_revs_diff"):
            let asked = (try? CanonicalJSON.parse(request.body ?? Data()))?.objectValue ?? [:]
            let have = storedIDs
            return jsonResponse(200, .object(JSONObject(Dictionary(uniqueKeysWithValues: asked.compactMap { member in
                have.contains(member.key) ? nil : (member.key, ["missing": member.value] as JSONValue)
            }))))
        case (.post, "/db/_bulk_docs"):
            let docs = (try? CanonicalJSON.parse(request.body ?? Data()))?["docs"]?.arrayValue ?? []
            let ids = docs.compactMap { $0["_id"]?.stringValue }
            let rules = lock.withLock { refuse }
            if ids.contains(where: { if case .tooLarge? = rules[$0] { true } else { false } }) {
                return jsonResponse(413, ["error": "document_too_large", "reason": .string(ids[0])])
            }
            var answer: [JSONValue] = []
            for id in ids {
                if case .forbidden(let why)? = rules[id] {
                    answer.append(["id": .string(id), "error": "forbidden", "reason": .string(why), "status": 403])
                } else {
                    lock.withLock { _ = stored.insert(id) }
                    answer.append(["id": .string(id), "rev": "1-x"])
                }
            }
            return jsonResponse(201, .array(answer))
        case (.get, let p) where p.hasPrefix("/db/_local/"):
            return lock.withLock { checkpoint }.map { jsonResponse(200, $0) } ?? jsonResponse(404, ["error": "not_found"])
        case (.put, let p) where p.hasPrefix("/db/_local/"):
            lock.withLock { checkpoint = try? CanonicalJSON.parse(request.body ?? Data()) }
            return jsonResponse(201, ["ok": true])
        default:
            return jsonResponse(404, ["error": "not_found"])
        }
    }

    func setRefuse(_ rules: [String: Refusing]) { lock.withLock { refuse = rules } }
}

@Suite struct RefusalTests {
    @Test func refusedDocumentsStayPendingAreRecordedAndRetriedUntilAccepted() async throws {
        let peer = RefusingPeer()
        peer.setRefuse(["big": .tooLarge, "theirs": .forbidden("wrong user")])
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert(["a", "big", "b", "theirs", "c"].map { NewDocument(id: $0, body: body(owner: "alice")) })
        let remote = RemoteDatabase(url: URL(string: "http://couch.test/db")!, transport: peer.transport, credentials: .none)
        let replicator = Replicator(store: store, remote: remote, limits: BatchLimits(count: 10), userID: "alice")

        let first = try await replicator.push()
        #expect(peer.storedIDs == ["a", "b", "c"])
        #expect(first.written == 3)
        #expect(Set(first.refusals.map(\.id)) == ["big", "theirs"])
        #expect(first.refusals.first { $0.id == "theirs" }?.reason == "forbidden: wrong user")
        #expect(first.refusals.first { $0.id == "big" }?.reason == "HTTP 413 document_too_large")
        #expect(first.refusals.allSatisfy { $0.gateway == "http://couch.test/db" && $0.rev.hasPrefix("1-") })
        #expect(Set(try store.list(ListQuery(unsyncedOnly: true)).map(\.id)) == ["big", "theirs"])
        // The record is in the store (a `_local` document), for status and list
        #expect(Set(try RefusalLog(store: store).all().map(\.id)) == ["big", "theirs"])

        // Nothing changed: the checkpoint is past them, yet both are offered again
        let second = try await replicator.push()
        let lastBulk = try #require(peer.transport.requests.last { $0.url.path == "/db/_bulk_docs" })
        let resent = (try CanonicalJSON.parse(lastBulk.body ?? Data()))["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue }
        #expect(resent.map(Set.init) == ["theirs"] || resent.map(Set.init) == ["big"])
        #expect(Set(second.refusals.map(\.id)) == ["big", "theirs"])
        #expect(second.written == 0)

        // Once the peer accepts them, they are synced and their records go
        peer.setRefuse([:])
        let third = try await replicator.push()
        #expect(third.refusals.isEmpty)
        #expect(peer.storedIDs == ["a", "b", "c", "big", "theirs"])
        #expect(try store.list(ListQuery(unsyncedOnly: true)).isEmpty)
        #expect(try RefusalLog(store: store).all().isEmpty)
        // And a fourth push has nothing to send
        let fourth = try await replicator.push()
        #expect(fourth.examined == 0 && fourth.refusals.isEmpty)
    }

    @Test func refusalsAreKeptPerGateway() async throws {
        let peer = RefusingPeer()
        peer.setRefuse(["x": .forbidden("no")])
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert([NewDocument(id: "x", body: body(owner: "alice"))])
        let one = RemoteDatabase(url: URL(string: "http://couch.test/db")!, transport: peer.transport, credentials: .none)
        _ = try await Replicator(store: store, remote: one, userID: "alice").push()
        let other = RefusingPeer()
        let two = RemoteDatabase(url: URL(string: "http://couch.test:81/db")!, transport: other.transport, credentials: .none)
        let accepted = try await Replicator(store: store, remote: two, userID: "alice").push()
        #expect(accepted.refusals.isEmpty)
        // The first gateway's refusal stands until that gateway accepts it
        #expect(try RefusalLog(store: store).all().map(\.gateway) == ["http://couch.test/db"])
    }
}
