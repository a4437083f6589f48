import FPCore
import FPGateway
import FPNet
import FPStore
@testable import FPSync
import Foundation
import Testing

/// Wraps a real transport, counts requests in flight at once and holds each
/// one until `expected` have been in flight together (or `grace` passes), so requests sent
/// one after another show up as a peak of 1 and requests sent together as
/// a peak of `expected`.
final class InFlightTransport: HTTPTransport, @unchecked Sendable {
    private let inner: any HTTPTransport
    private let lock = NSLock()
    private var now = 0
    private var peakSeen = 0
    private var paths: [String] = []
    var expected = 1
    let grace: Duration

    init(_ inner: any HTTPTransport, grace: Duration = .seconds(3)) {
        self.inner = inner
        self.grace = grace
    }

    var peak: Int { lock.withLock { peakSeen } }
    var requested: [String] { lock.withLock { paths } }
    func reset(expecting count: Int) { lock.withLock { (peakSeen, paths, expected) = (0, [], count) } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let target = lock.withLock { () -> Int in
            now += 1
            peakSeen = max(peakSeen, now)
            paths.append(request.url.path)
            return expected
        }
        let deadline = ContinuousClock.now + grace
        while lock.withLock({ peakSeen < target }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        defer { lock.withLock { now -= 1 } }
        return try await inner.send(request)
    }
}

@Suite(.serialized) struct SyncOpeningTests {
    /// One push and pull, as `fprint sync` runs them.
    func sync(_ replicator: Replicator) async throws -> (push: SyncReport, pull: SyncReport) {
        var opening = try await replicator.open(push: true, pull: true)
        let push = try await replicator.push(opening)
        opening = opening.afterPush(push)
        return (push, try await replicator.pull(opening))
    }

    @Test func aSyncWithNothingToDoAsksEverythingAtOnce() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert((0..<3).map { NewDocument(id: "m\($0)", body: body(owner: "alice")) })
        let transport = InFlightTransport(CurlHTTPTransport())
        let remote = RemoteDatabase(url: gateway.url, transport: transport, credentials: .bearer(gateway.token("alice")))
        let replicator = Replicator(store: store, remote: remote, userID: "alice")

        let first = try await sync(replicator)
        #expect(first.push.written == 3 && first.pull.written == 0)
        _ = try await sync(replicator)  // the pull examines what the push sent: not yet a no-op

        transport.reset(expecting: 3)
        let noop = try await sync(replicator)
        #expect(noop.push.examined == 0 && noop.pull.examined == 0)
        // Both checkpoints and the feed (whose answer shows the database is one), together; nothing after them.
        #expect(transport.peak == 3, "requests in flight at once: \(transport.peak) (\(transport.requested))")
        let paths = transport.requested
        #expect(paths.count == 3 && paths.filter { $0.hasPrefix("/fprint/_local/") }.count == 2
                    && paths.contains("/fprint/_changes"), "\(paths)")
    }

    @Test func theEarlyFeedIsNotTrustedAfterAPushThatSentSomething() async throws {
        let gateway = try await LiveGateway()
        defer { Task { await gateway.running.stop() } }
        let alice = try SQLiteDocumentStore.inMemory()
        let bob = try SQLiteDocumentStore.inMemory()
        try alice.insert([NewDocument(id: "a1", body: body(owner: "alice"))])
        let transport = InFlightTransport(CurlHTTPTransport(), grace: .zero)
        let remote = RemoteDatabase(url: gateway.url, transport: transport, credentials: .bearer(gateway.token("alice")))
        let ra = Replicator(store: alice, remote: remote, userID: "alice")
        let rb = gateway.replicator(bob, user: "bob")
        _ = try await sync(ra)
        _ = try await sync(ra)

        // Bob's document arrives at the gateway after alice's opening has read the feed
        // (her own new document is pushed in between): her pull must still get it.
        try alice.insert([NewDocument(id: "a2", body: body(owner: "alice"))])
        try bob.insert([NewDocument(id: "b1", body: body(owner: "bob"))])
        var opening = try await ra.open(push: true, pull: true)
        _ = try await rb.push()
        let push = try await ra.push(opening)
        #expect(push.written == 1)
        opening = opening.afterPush(push)
        let pull = try await ra.pull(opening)
        #expect(pull.written == 1)
        #expect(try alice.document(id: "b1", includeDeleted: false) != nil)
    }

    @Test func aFeedPageInAnotherShapeIsNoProofOfADatabase() async throws {
        let store = try SQLiteDocumentStore.inMemory()
        let url = "http://127.0.0.1:9/fprint"
        // A pull checkpoint, so the opening asks the feed on a guess.
        let pullID = Replicator.replicationID(uuid: try store.databaseUUID(), remote: url, .pull)
        try store.putLocalDocument(id: pullID, body: ["session_id": "s1", "source_last_seq": 3, "history": []])
        let transport = ScriptedTransport { request in
            request.url.path.contains("/_local/")
                ? jsonResponse(404, ["error": "not_found"])
                : jsonResponse(200, ["couchdb": "Welcome"])
        }
        let remote = RemoteDatabase(url: URL(string: url)!, transport: transport, credentials: .none)
        await #expect(throws: SyncError.protocolError("\(url) does not look like a CouchDB database")) {
            _ = try await Replicator(store: store, remote: remote, userID: "alice").open(push: true, pull: true)
        }
        #expect(transport.requests.map(\.url.path).contains("/fprint"), "GET /db was not asked")
    }

    @Test func aURLThatIsNoDatabaseFailsAsSuchWhateverTheOtherAnswers() async throws {
        let store = try SQLiteDocumentStore.inMemory()
        let transport = ScriptedTransport { request in
            request.url.path.hasSuffix("/_local/") || request.url.path.contains("/_local/")
                ? jsonResponse(404, ["error": "not_found"])
                : jsonResponse(200, ["couchdb": "Welcome"])
        }
        let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:9/fprint")!, transport: transport, credentials: .none)
        let replicator = Replicator(store: store, remote: remote, userID: "alice")
        await #expect(throws: SyncError.protocolError("http://127.0.0.1:9/fprint does not look like a CouchDB database")) {
            _ = try await replicator.open(push: true, pull: true)
        }
    }
}
