import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import FPTestSupport
import Foundation
import Testing

/// A transport answering from a closure and recording every request:
/// replays of recorded peers (Sync Gateway, CouchDB) without a server.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []
    private let answer: @Sendable (HTTPRequest) throws -> HTTPResponse

    init(_ answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) { self.answer = answer }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        do {
            return try answer(request)
        } catch let error as HTTPError {
            throw error
        } catch {
            throw .failed(url: request.url.absoluteString, reason: "\(error)")
        }
    }

    var requests: [HTTPRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

func jsonResponse(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = ["Content-Type": "application/json"]) -> HTTPResponse {
    HTTPResponse(status: status, headers: headers, body: CanonicalJSON.data(value))
}

func fixture(_ name: String) throws -> Data { try FixtureFolder(.module).data(name) }

/// A gateway at `/db` that lacks every revision it is asked about and has
/// no checkpoints yet; `_bulk_docs` answers what `bulkDocs` says (accepted).
func gatewayLackingEverything(bulkDocs: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in jsonResponse(201, []) })
    -> ScriptedTransport
{
    ScriptedTransport { request in
        switch request.url.path {
        case "/db/_revs_diff":
            let asked = (try? CanonicalJSON.parse(request.body ?? Data()))?.objectValue ?? [:]
            return jsonResponse(200, .object(asked.mapValues { ["missing": $0] }))
        case "/db/_bulk_docs":
            return bulkDocs(request)
        case let p where p.hasPrefix("/db/_local"):
            return request.method == .get ? jsonResponse(404, ["error": "not_found"]) : jsonResponse(201, ["ok": true])
        default:
            return jsonResponse(404, ["error": "not_found"])
        }
    }
}

/// A measurement-like body owned by `owner`.
func body(owner: String, note: String = "") -> JSONValue {
    ["type": "scan", "level": "J1NP", "x": 363, "y": 701, "createdAt": "2026-11-22T06:00:00.000Z",
     "couchbase_sync_gateway_id": .string(owner), "note": .string(note),
     "bleScans": [["address": "C4:7C:8D:00:00:01", "rssi": -60, "time": 0]]]
}

/// A gateway in this process on a free loopback port, with its own store.
struct LiveGateway {
    let store: SQLiteDocumentStore
    let authority = TokenAuthority(secret: Data("sync-test-secret-sync-test-secret".utf8))
    let running: RunningGateway

    init(bodyLimit: Int = 32 << 20) async throws {
        store = try SQLiteDocumentStore.inMemory()
        running = try await startGateway(store: store, config: GatewayConfig(tokens: authority, bodyLimit: bodyLimit))
    }

    var url: URL { URL(string: "http://127.0.0.1:\(running.port)/fprint")! }

    func token(_ user: String, admin: Bool = false) -> String {
        authority.issue(user: user, admin: admin, ttlSeconds: 3600)
    }

    func replicator(_ store: any ReplicableStore, user: String, token: String? = nil, limits: BatchLimits = BatchLimits(count: 20))
        -> Replicator
    {
        let remote = RemoteDatabase(url: url, transport: CurlHTTPTransport(), credentials: .bearer(token ?? self.token(user)),
                                    retry: RetryPolicy(attempts: 2, initialDelay: 0.01, maxDelay: 0.01))
        return Replicator(store: store, remote: remote, limits: limits, userID: user)
    }
}

/// Id → winning revision and deleted flag, over every document (tombstones included).
func snapshot(_ store: SQLiteDocumentStore) throws -> [String: String] {
    var out: [String: String] = [:]
    for change in try store.changeFeed(since: 0, limit: Int.max) {
        out[change.id] = change.rev.description + (change.deleted ? " deleted" : "") + " leaves:\(change.leaves.count)"
    }
    return out
}
