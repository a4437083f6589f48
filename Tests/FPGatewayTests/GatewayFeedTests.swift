import FPCore
@testable import FPGateway
import FPStore
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// `_changes` feeds the way CouchDB writes them (couchdb-3.5-answers.txt),
/// waiters woken by writes, and the password-guessing throttle.
@Suite struct GatewayFeedTests {
    func lines(_ answer: Answer) -> [String] {
        guard case .string(let text) = answer.json else { return [CanonicalJSON.string(answer.json)] }
        return text.split(separator: "\n").map(String.init)
    }

    @Test func continuousFeedIsOneChangeALineThenLastSeq() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        for id in ["a", "b", "c"] {
            _ = try f.store.edit(id: id, body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)
        }
        try await f.app.test(.router) { client in
            let feed = try await client.call(.get, "/fprint/_changes?feed=continuous&style=all_docs&since=1&timeout=200", token: alice)
            #expect(feed.status == .ok)
            let rows = try lines(feed).map { try CanonicalJSON.parse(Data($0.utf8)) }
            #expect(rows.count == 3)
            #expect(rows[0]["id"] == "b" && rows[0]["seq"] == "2")
            #expect(rows[1]["id"] == "c")
            #expect(rows[0]["changes"]?.arrayValue?.count == 1)
            #expect(rows[2] == ["last_seq": "3", "pending": 0])
        }
    }

    @Test func continuousFeedCarriesChangesAsTheyCommit() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.live) { client in
            // A second connection: the test client's one is busy with the feed.
            let port = try #require(client.port)
            let writer = Task {
                try await Task.sleep(for: .milliseconds(300))
                _ = try await putOnANewConnection(port: port, "/fprint/late", token: alice, doc("late", owner: "alice"))
            }
            let started = ContinuousClock.now
            let feed = try await onANewConnection(port: port) {
                try await $0.answer(.get, "/fprint/_changes?feed=continuous&since=0&heartbeat=100&limit=1&timeout=600000", token: alice)
            }
            try await writer.value
            let rows = try lines(feed).map { try CanonicalJSON.parse(Data($0.utf8)) }
            #expect(rows.first?["id"] == "late")
            #expect(rows.last?["last_seq"] == "1")
            // limit=1 ended the feed once the change was sent, not its 10 minute
            // timeout: a bound only that generous, whatever else the machine does.
            #expect(ContinuousClock.now - started < .seconds(300))
        }
    }

    @Test func eventsourceFeed() async throws {
        let f = try GatewayFixture()
        _ = try f.store.edit(id: "a", body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)
        try await f.app.test(.router) { client in
            let feed = try await client.call(.get, "/fprint/_changes?feed=eventsource&since=0&timeout=100", token: f.token("alice"))
            #expect(feed.headers[.contentType] == "text/event-stream")
            let text = lines(feed)
            #expect(text.first?.hasPrefix("data: {") == true)
            #expect(text.contains(#"id: "1""#))
        }
    }

    @Test func docIDsFilterAndUnknownFilters() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        for id in ["a", "b", "c"] {
            _ = try f.store.edit(id: id, body: ["couchbase_sync_gateway_id": "alice"], parent: nil, deleted: false)
        }
        try await f.app.test(.router) { client in
            let post = try await client.call(.post, "/fprint/_changes?filter=_doc_ids&style=all_docs", token: alice,
                                             body: ["doc_ids": ["a", "c"]])
            #expect(post.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "c"])
            let get = try await client.call(.get, "/fprint/_changes?filter=_doc_ids&doc_ids=%5B%22b%22%5D", token: alice)
            #expect(get.json["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
            let unknown = try await client.call(.get, "/fprint/_changes?filter=nosuch/filter", token: alice)
            #expect(unknown.status == .badRequest)
            #expect(try await client.call(.get, "/fprint/_changes?feed=sideways", token: alice).status == .badRequest)
        }
    }

    @Test func longpollIsWokenByAWriteNotByPolling() async throws {
        let f = try GatewayFixture()
        let alice = f.token("alice")
        try await f.app.test(.live) { client in
            let port = try #require(client.port)
            let writer = Task {
                try await Task.sleep(for: .milliseconds(200))
                return try await putOnANewConnection(port: port, "/fprint/now", token: alice, doc("now", owner: "alice"))
            }
            let started = ContinuousClock.now
            let answer = try await onANewConnection(port: port) {
                try await $0.answer(.get, "/fprint/_changes?feed=longpoll&since=0&timeout=600000", token: alice)
            }
            #expect(try await writer.value == .created)
            #expect(answer.json["results"]?.arrayValue?.first?["id"] == "now")
            // Woken by the write, not by the 10 minute timeout: with all the room
            // a busy machine needs (17 s seen).
            #expect(ContinuousClock.now - started < .seconds(300))
        }
    }

    @Test func notifierWakesWaitersOnPokeAndShutdown() async throws {
        let store = try SQLiteDocumentStore.inMemory()
        let notifier = ChangeNotifier(lastSequence: { try await onStoreThread { try store.lastSequence() } })
        // Timeouts of an hour: a wait that timed out before all 100 were
        // listed (a busy machine) would leave the count short for ever.
        let waiters = (0..<100).map { _ in Task { await notifier.waitForChange(after: 0, timeout: .seconds(3600)) } }
        while await notifier.waiting < 100 { try await Task.sleep(for: .milliseconds(10)) }
        _ = try store.edit(id: "x", body: [:], parent: nil, deleted: false)
        await notifier.poke()
        for waiter in waiters { await waiter.value }
        #expect(await notifier.waiting == 0)
        // Shutdown answers waits at once.
        let late = Task { await notifier.waitForChange(after: 5, timeout: .seconds(3600)) }
        while await notifier.waiting < 1 { try await Task.sleep(for: .milliseconds(10)) }
        await notifier.shutdown()
        await late.value
        await notifier.waitForChange(after: 5, timeout: .seconds(3600))
    }

    @Test func badPasswordsSlowDownOverHTTP() async throws {
        let f = try GatewayFixture()
        try await f.app.test(.router) { client in
            let bad = "Basic " + Data("carol:guess".utf8).base64EncodedString()
            var sixthSent = ContinuousClock.now
            for n in 1...7 {
                if n == 6 { sixthSent = ContinuousClock.now }
                let answer = try await client.call(.get, "/fprint", token: nil, headers: [.authorization: bad])
                #expect(answer.status == .unauthorized)
            }
            // The 7th check waited GuessThrottle.penalty(afterFailures: 6)
            // counted from the 6th failure, which came after the 6th request
            // was sent: a bound that holds however slowly answers travel on a
            // busy machine. Unthrottled, the two checks take a few milliseconds.
            #expect(ContinuousClock.now - sixthSent >= GuessThrottle.penalty(afterFailures: 6))
            #expect(GuessThrottle.penalty(afterFailures: 6) >= .seconds(1))
        }
    }
}

/// A PUT on a connection of its own (the test client's is busy with a feed).
func putOnANewConnection(port: Int, _ uri: String, token: String, _ body: JSONValue) async throws -> HTTPResponse.Status {
    try await onANewConnection(port: port) { other in
        try await other.execute(uri: uri, method: .put, headers: [.authorization: "Bearer \(token)"],
                                body: ByteBuffer(bytes: CanonicalJSON.data(body))).status
    }
}

/// A client on a connection of its own that waits up to 10 minutes for an
/// answer (a write may wait that long for the lock, or a feed for its
/// change, when the whole suite runs on two busy cores): a bound only against hanging.
func onANewConnection<T: Sendable>(port: Int, _ body: @escaping @Sendable (HTTPConnection) async throws -> T) async throws -> T {
    try await HTTPConnection.withConnection(port: port, timeout: .seconds(600), body)
}

/// A clock the test moves by hand.
final class ManualInstant: @unchecked Sendable {
    private let lock = NSLock()
    private var current = ContinuousClock.now
    var now: ContinuousClock.Instant {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    func advance(_ by: Duration) {
        lock.lock()
        current = current.advanced(by: by)
        lock.unlock()
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var out: [T] = []
        for element in self { out.append(await transform(element)) }
        return out
    }
}

extension HTTPConnection {
    /// A GET as `call` makes it (status and parsed JSON), on this connection.
    func answer(_ method: HTTPRequest.Method, _ uri: String, token: String) async throws -> Answer {
        let response = try await execute(uri: uri, method: method, headers: [.authorization: "Bearer \(token)"])
        let data = Data(response.body.readableBytesView)
        let json = data.isEmpty ? JSONValue.null : (try? CanonicalJSON.parse(data)) ?? .string(String(decoding: data, as: UTF8.self))
        return Answer(status: response.status, json: json, headers: response.headers)
    }
}
