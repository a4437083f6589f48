import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import Foundation
import Testing

/// The client against recorded peer answers (no server): the shapes real
/// CouchDB, Sync Gateway and PouchDB send.
@Suite struct TranscriptReplayTests {
    /// Splits the recorded HTTP answer into its Content-Type and body.
    func recordedMultipart() throws -> (contentType: String, body: Data) {
        // The recording is the raw answer, CRLF line ends included.
        let data = try fixture("sg15-bulk_get-multipart.txt")
        let split = try #require(data.range(of: Data("\r\n\r\n".utf8)))
        let head = String(decoding: data[..<split.lowerBound], as: UTF8.self)
        let contentType = try #require(head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("content-type:") })
        return (String(contentType.dropFirst("Content-Type:".count)).trimmingCharacters(in: .whitespaces),
                Data(data[split.upperBound...]))
    }

    @Test func syncGatewayMultipartBulkGetIsParsed() async throws {
        let (contentType, body) = try recordedMultipart()
        let parsed = try BulkGetAnswer.parse(body: body, contentType: contentType)
        #expect(parsed.count == 3)
        guard case .ok(let meas1) = parsed[0], case .ok(let meas4) = parsed[1], case .missing(let id, let rev, let reason) = parsed[2]
        else { Issue.record("unexpected shape: \(parsed)"); return }
        #expect(meas1.id == "meas1")
        #expect(meas1.rev.description == "1-b2b59a059d074ff630256065cea9feef")
        #expect(meas1.history == [meas1.rev])
        #expect(meas1.body["couchbase_sync_gateway_id"] == "alice")
        #expect(meas1.body["_id"] == nil && meas1.body["_revisions"] == nil)
        #expect(meas4.id == "meas4" && meas4.body["x"] == "4")
        #expect(id == "nope" && rev == "1-x" && reason == "missing")
    }

    @Test func truncatedMultipartIsAProtocolErrorNotACrash() async throws {
        let (contentType, body) = try recordedMultipart()
        for cut in stride(from: 0, to: body.count - 5, by: 37) {
            #expect(throws: SyncError.self) { try BulkGetAnswer.parse(body: body.prefix(cut), contentType: contentType) }
        }
        #expect(throws: SyncError.self) { try BulkGetAnswer.parse(body: body, contentType: "multipart/mixed") }
    }

    /// A Sync Gateway 1.5 replay: `_bulk_get` refused with 406, numeric `seq`
    /// and string `last_seq`, per-document `_bulk_docs` answers.
    func syncGatewayReplay(rejecting rejected: Set<String> = []) -> ScriptedTransport {
        let (contentType, multipart) = (try? recordedMultipart()) ?? ("", Data())
        return ScriptedTransport { request in
            let path = request.url.path
            let query = request.url.query ?? ""
            switch (request.method.rawValue, path) {
            case ("GET", "/fprint"), ("GET", "/fprint/"):
                return jsonResponse(200, ["db_name": "fprint", "update_seq": 5])
            case ("GET", let p) where p.hasPrefix("/fprint/_local/"):
                return jsonResponse(404, ["error": "not_found", "reason": "missing"])
            case ("PUT", let p) where p.hasPrefix("/fprint/_local/"):
                return jsonResponse(201, ["id": "x", "rev": "0-1"])
            case ("GET", "/fprint/_changes"):
                if query.contains("since=0") {
                    return jsonResponse(200, ["results": [
                        ["seq": 3, "id": "meas1", "changes": [["rev": "1-b2b59a059d074ff630256065cea9feef"]]],
                        ["seq": 4, "id": "meas4", "changes": [["rev": "1-3f786850e387550fdab836ed7e6dc881"]]],
                    ], "last_seq": "4"])
                }
                return jsonResponse(200, ["results": [], "last_seq": "4"])
            case ("POST", "/fprint/_bulk_get"):
                return HTTPResponse(status: 406, body: Data("{\"error\":\"Not Acceptable\",\"reason\":\"Response is multipart\"}".utf8))
            case ("GET", "/fprint/meas1"), ("GET", "/fprint/meas4"):
                // The open_revs fallback, answered with the recorded multipart parts.
                return HTTPResponse(status: 200, headers: ["Content-Type": contentType], body: multipart)
            case ("POST", "/fprint/_revs_diff"):
                let asked = (try? CanonicalJSON.parse(request.body ?? Data()))?.objectValue ?? [:]
                return jsonResponse(200, .object(asked.mapValues { ["missing": $0] }))
            case ("POST", "/fprint/_bulk_docs"):
                let docs = (try? CanonicalJSON.parse(request.body ?? Data()))?["docs"]?.arrayValue ?? []
                return jsonResponse(201, .array(docs.map { doc in
                    let id = doc["_id"]?.stringValue ?? ""
                    return rejected.contains(id)
                        ? ["id": .string(id), "error": "forbidden", "reason": "wrong user", "status": 403]
                        : ["id": .string(id), "rev": doc["_rev"] ?? .null]
                }))
            default:
                return jsonResponse(404, ["error": "not_found", "reason": .string("no route \(path)")])
            }
        }
    }

    @Test func pullFromSyncGatewayFallsBackToOpenRevsAndEchoesSequences() async throws {
        let transport = syncGatewayReplay()
        let store = try SQLiteDocumentStore.inMemory()
        let remote = RemoteDatabase(url: URL(string: "http://sg.test:4984/fprint")!, transport: transport, credentials: .bearer("tok"))
        let replicator = Replicator(store: store, remote: remote, userID: "alice")
        let report = try await replicator.pull()
        // Both documents arrive (the open_revs answers also carry unrelated parts, which are harmless)
        #expect(try store.document(id: "meas1", includeDeleted: false)?.rev.description == "1-b2b59a059d074ff630256065cea9feef")
        #expect(try store.document(id: "meas4", includeDeleted: false)?.body["x"] == "4")
        #expect(report.checkpoint == "4")
        // last_seq "4" (a string) is sent back verbatim and stored verbatim
        let sinces = transport.requests.filter { $0.url.path == "/fprint/_changes" }.map { $0.url.query ?? "" }
        #expect(sinces.first?.contains("since=0") == true)
        #expect(sinces.allSatisfy { $0.contains("feed=normal") && $0.contains("style=all_docs") })
        let checkpointPut = try #require(transport.requests.last { $0.method == .put })
        #expect(try CanonicalJSON.parse(checkpointPut.body ?? Data())["source_last_seq"] == "4")
        // Pulled documents count as synced
        #expect(try store.list(ListQuery(unsyncedOnly: true)).isEmpty)
        // _bulk_get was tried once, then the fallback was used
        #expect(transport.requests.filter { $0.url.path == "/fprint/_bulk_get" }.count == 1)
        #expect(transport.requests.contains { $0.url.path == "/fprint/meas1" && ($0.url.query ?? "").contains("open_revs") })
    }

    @Test func perDocumentRefusalsFromSyncGatewayStayUnsynced() async throws {
        let transport = syncGatewayReplay(rejecting: ["theirs"])
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert([NewDocument(id: "mine", body: body(owner: "-")), NewDocument(id: "theirs", body: body(owner: "bob"))])
        let remote = RemoteDatabase(url: URL(string: "http://sg.test:4984/fprint")!, transport: transport, credentials: .bearer("tok"))
        let report = try await Replicator(store: store, remote: remote, userID: "alice").push()
        #expect(report.signed == 1)
        #expect(report.rejected.count == 1 && report.rejected[0].hasPrefix("theirs"))
        #expect(try store.list(ListQuery(unsyncedOnly: true)).map(\.id) == ["theirs"])
        // Signed before the push, as a new revision; _revisions always sent
        #expect(try store.document(id: "mine", includeDeleted: false)?.body["couchbase_sync_gateway_id"] == "alice")
        let bulks = try transport.requests.filter { $0.url.path == "/fprint/_bulk_docs" }.map { try CanonicalJSON.parse($0.body ?? Data()) }
        #expect(!bulks.isEmpty && bulks.allSatisfy { $0["new_edits"] == false })
        let sent = bulks.flatMap { $0["docs"]?.arrayValue ?? [] }
        #expect(sent.allSatisfy { $0["_revisions"] != nil })
        #expect(sent.compactMap { $0["_id"]?.stringValue }.sorted() == ["mine", "theirs"])  // each once
        let mine = sent.first { $0["_id"] == "mine" }
        #expect(mine?["_revisions"]?["ids"]?.arrayValue?.count == 2)
        #expect(mine?["couchbase_sync_gateway_id"] == "alice")
    }

    @Test func status413HalvesTheBatch() async throws {
        let transport = gatewayLackingEverything { request in
            let count = (try? CanonicalJSON.parse(request.body ?? Data()))?["docs"]?.arrayValue?.count ?? 0
            return count > 3 ? jsonResponse(413, ["error": "too_large", "reason": "too big"]) : jsonResponse(201, [])
        }
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert((0..<10).map { NewDocument(id: "d\($0)", body: body(owner: "alice")) })
        let remote = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: transport, credentials: .none)
        let report = try await Replicator(store: store, remote: remote, limits: BatchLimits(count: 10), userID: "alice").push()
        #expect(report.written == 10)
        let sizes = transport.requests.filter { $0.url.path == "/db/_bulk_docs" }.map {
            (try? CanonicalJSON.parse($0.body ?? Data()))?["docs"]?.arrayValue?.count ?? 0
        }
        #expect(sizes.first == 10)
        #expect(sizes.contains(5) && sizes.filter { $0 <= 3 }.reduce(0, +) == 10)
    }

    @Test func connectionErrorsAndServerErrorsAreRetriedThenReported() async throws {
        let attempts = ScriptedTransport { request in
            throw HTTPError.unreachable(url: request.url.absoluteString, reason: "Connection refused")
        }
        let delays = DelayLog()
        let remote = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: attempts, credentials: .bearer("SECRET-TOKEN"),
                                    retry: RetryPolicy(attempts: 4, initialDelay: 0.1, maxDelay: 0.25), sleep: { delays.add($0) })
        await #expect(throws: SyncError.self) { try await remote.json(.get, []) }
        #expect(attempts.requests.count == 4)
        #expect(delays.values == [0.1, 0.2, 0.25])
        do {
            _ = try await remote.json(.get, [])
        } catch {
            #expect(!"\(error)".contains("SECRET-TOKEN"))
            guard case .unreachable = error else { Issue.record("expected unreachable, got \(error)"); return }
        }
        // A 503 then a 200: one retry
        let flaky = FlakyOnce()
        let remote2 = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: ScriptedTransport { _ in
            flaky.next() ? jsonResponse(503, ["error": "unavailable"]) : jsonResponse(200, ["db_name": "db"])
        }, credentials: .none, sleep: { _ in })
        #expect(try await remote2.json(.get, [])["db_name"] == "db")
        // 401 is final and an auth error
        let denied = RemoteDatabase(url: URL(string: "http://x.test/db")!, transport: ScriptedTransport { _ in
            jsonResponse(401, ["error": "unauthorized", "reason": "the token has expired"])
        }, credentials: .bearer("t"), sleep: { _ in })
        await #expect(throws: SyncError.authRejected("GET http://x.test/db answered 401: the token has expired")) { try await denied.json(.get, []) }
    }

    /// CouchDB checks a `_local` doc's `_rev`: a checkpoint PUT that was
    /// applied but whose answer was lost is retried with the old `_rev`,
    /// gets 409, and the replicator reads the rev again instead of failing.
    @Test func aCheckpointWhoseAnswerWasLostIsWrittenAgain() async throws {
        let peer = LocalRevisionPeer()
        let transport = ScriptedTransport { request in
            switch (request.method, request.url.path) {
            case (.post, "/db/_revs_diff"):
                let asked = (try? CanonicalJSON.parse(request.body ?? Data()))?.objectValue ?? [:]
                return jsonResponse(200, .object(asked.mapValues { ["missing": $0] }))
            case (.post, "/db/_bulk_docs"):
                return jsonResponse(201, [])
            case (.get, let p) where p.hasPrefix("/db/_local/"):
                return peer.get()
            case (.put, let p) where p.hasPrefix("/db/_local/"):
                return try peer.put(request.body ?? Data())
            default:
                return jsonResponse(404, ["error": "not_found"])
            }
        }
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert((0..<4).map { NewDocument(id: "d\($0)", body: body(owner: "alice")) })
        let remote = RemoteDatabase(url: URL(string: "http://couch.test/db")!, transport: transport, credentials: .none, sleep: { _ in })
        let replicator = Replicator(store: store, remote: remote, limits: BatchLimits(count: 2), userID: "alice")
        peer.loseAnswerOfPut(number: 2)
        let report = try await replicator.push()
        #expect(report.written == 4)
        #expect(peer.conflicts == 1)
        // The remote checkpoint holds the last batch, and both sides agree
        let repID = try await replicator.replicationID(.push)
        let local = try store.localDocument(id: repID)
        #expect(peer.body?["source_last_seq"] == 4)
        #expect(local?["session_id"] == peer.body?["session_id"])
    }

    @Test func checkpointsResumeFromTheCommonSession() {
        typealias C = Replicator
        let a: JSONValue = ["session_id": "s2", "source_last_seq": 9, "history": [["session_id": "s2", "recorded_seq": 9], ["session_id": "s1", "recorded_seq": 5]]]
        let b: JSONValue = ["session_id": "s1", "source_last_seq": 5, "history": [["session_id": "s1", "recorded_seq": 5]]]
        #expect(C.resumeSequence(local: a, remote: a) == 9)
        #expect(C.resumeSequence(local: a, remote: b) == 5)
        #expect(C.resumeSequence(local: a, remote: nil) == nil)
    }
}

final class DelayLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Double] = []
    func add(_ d: Double) { lock.lock(); list.append(d); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return list }
}

final class FlakyOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var failed = false
    func next() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if failed { return false }
        failed = true
        return true
    }
}

/// One `_local` document with CouchDB's revision check (`0-N`, 409 on a stale
/// `_rev`); `loseAnswerOfPut` applies that PUT but throws as a cut connection would.
final class LocalRevisionPeer: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: JSONValue?
    private var revision = 0
    private var puts = 0
    private var lose = 0
    private(set) var conflicts = 0

    var body: JSONValue? { lock.lock(); defer { lock.unlock() }; return stored }
    func loseAnswerOfPut(number: Int) { lock.lock(); lose = number; lock.unlock() }

    func get() -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        guard var doc = stored else { return jsonResponse(404, ["error": "not_found", "reason": "missing"]) }
        doc["_rev"] = .string("0-\(revision)")
        return jsonResponse(200, doc)
    }

    func put(_ data: Data) throws -> HTTPResponse {
        lock.lock()
        defer { lock.unlock() }
        var doc = try CanonicalJSON.parse(data)
        let sent = doc["_rev"]?.stringValue
        guard sent == (revision == 0 ? nil : "0-\(revision)") else {
            conflicts += 1
            return jsonResponse(409, ["error": "conflict", "reason": "Document update conflict."])
        }
        doc["_rev"] = nil
        stored = doc
        revision += 1
        puts += 1
        if puts == lose { throw HTTPError.unreachable(url: "http://couch.test/db", reason: "Connection reset by peer") }
        return jsonResponse(201, ["ok": true, "rev": .string("0-\(revision)")])
    }
}
