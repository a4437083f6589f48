import FPCore
import FPDashboard
import Foundation
import Hummingbird

/// The CouchDB endpoints over `ReplicableStore`, one file per family under
/// `Endpoints/`. The responder has authenticated the request (on its headers)
/// and read its body, and turns store errors into CouchDB's; `handle` only
/// dispatches on the path.
struct CouchHandler: Sendable {
    let store: any ReplicableStore
    let config: GatewayConfig
    let notifier: ChangeNotifier
    let authenticator: Authenticator
    /// Where `fprint track --publish` puts positions for the dashboard's live view.
    let livePositions: LivePositions
    /// Set when the gateway begins to stop: a long `_bulk_docs` ends between documents.
    let stop: StopNotice
    /// The memory every request's body and every streamed answer's large batches share.
    let budget: BodyBudget
    /// Who may write a document and the write itself are one step: two
    /// users racing on one new id cannot both pass the owner check.
    let writes = WriteSerializer()

    /// CouchDB's replicator compares this between `GET /db` and
    /// `_ensure_full_commit`; a constant keeps it stable across restarts.
    static let instanceStartTime = "0"
    static let ownerKey = MeasurementDocument.ownerKey

    func handle(_ request: CouchRequest) async throws -> Reply {
        guard let user = request.user else { throw CouchError.unauthorized }
        let segments = request.segments
        guard let first = segments.first else {
            return .json(.ok, ["couchdb": "Welcome", "version": "3.3.0", "vendor": ["name": "fprint"]])
        }
        if first == "_session" { return try sessionInfo(request, user) }
        if first == "config" { return try configFile(request) }
        if first == "_positions" { return try await positions(request, user) }
        guard first == config.databaseName else {
            if segments.count == 1, request.method == .put {
                throw CouchError.forbidden("this gateway serves only the database \(config.databaseName)")
            }
            throw CouchError.notFound("Database does not exist.")
        }
        return try await route(request, Array(segments.dropFirst()), user)
    }

    /// Largest body of a request that only asks (ids and revisions to look
    /// up): 10,000 ids with their revisions fit in far less, and its parsed
    /// tree costs several times its text.
    static let queryBodyLimit = 4 << 20
    /// Largest `_local` document (a replication checkpoint is a few hundred bytes).
    static let localBodyLimit = 64 << 10
    /// Most ids one request may ask about (`_all_docs` keys, `_bulk_get`
    /// docs, `_revs_diff` ids): replicators ask 100–500 at a time.
    static let maxIDsPerRequest = 10_000

    /// The body limit of a request, by what it is for.
    func bodyLimit(for request: CouchRequest) -> Int {
        let segments = request.segments
        if segments == ["_positions"] { return Self.positionsBodyLimit }
        guard segments.count >= 2, segments[0] == config.databaseName else { return config.bodyLimit }
        switch segments[1] {
        case "_bulk_get", "_all_docs", "_revs_diff", "_changes": return min(config.bodyLimit, Self.queryBodyLimit)
        case "_local": return min(config.bodyLimit, Self.localBodyLimit)
        default: return config.bodyLimit
        }
    }

    /// Why a request's body is refused for its Content-Type (415), or nil.
    /// A body parsed as JSON must say so, as CouchDB requires of POSTs: a
    /// form or `text/plain` (which a page of any site may send without
    /// asking) never reaches a handler. A document or `_local` PUT is held
    /// to the same rule when it names a type (a document may also come as
    /// multipart/related); CouchDB takes any type there.
    func bodyTypeRefusal(_ request: CouchRequest) -> CouchError? {
        guard request.hasBody else { return nil }
        let segments = request.segments
        switch request.method {
        case .post:
            let takesJSON = segments == ["_positions"] || (segments.first == config.databaseName && (segments.count == 1
                || (segments.count == 2 && ["_bulk_docs", "_bulk_get", "_all_docs", "_revs_diff", "_changes"].contains(segments[1]))))
            return takesJSON && !JSONContentType.isJSON(request.headers) ? JSONContentType.refusal : nil
        case .put:
            guard segments.first == config.databaseName, request.headers[.contentType] != nil,
                  !JSONContentType.isJSON(request.headers) else { return nil }
            if segments.count == 3, segments[1] == "_local" { return JSONContentType.refusal }
            guard segments.count == 2, !segments[1].hasPrefix("_") else { return nil }
            return JSONContentType.isMultipartRelated(request.headers) ? nil : JSONContentType.documentRefusal
        default:
            return nil
        }
    }

    /// A request asks about at most `maxIDsPerRequest` ids.
    static func checkIDCount(_ count: Int, _ what: String) throws {
        guard count <= maxIDsPerRequest else {
            throw CouchError.badRequest("\(what): \(count) ids; at most \(maxIDsPerRequest) per request, ask in batches")
        }
    }

    /// Requests that change data; viewers are refused before their body is
    /// read. POSTs that only query are not writes, nor are `_local`
    /// documents: a read-only replicator keeps its checkpoints there.
    func isDataWrite(_ request: CouchRequest) -> Bool {
        guard request.isWrite else { return false }
        let segments = request.segments
        if segments.first == "_session" { return false }
        guard segments.count >= 2, segments[0] == config.databaseName else { return true }
        switch segments[1] {
        case "_changes", "_revs_diff", "_bulk_get", "_all_docs", "_ensure_full_commit", "_local":
            return false
        default:
            return true
        }
    }

    private func route(_ request: CouchRequest, _ rest: [String], _ user: GatewayUser) async throws -> Reply {
        let method = request.method
        switch rest.first {
        case nil:
            switch method {
            case .get: return .json(.ok, try await onStoreThread { try self.databaseInfo() })
            case .put: throw CouchError(status: .preconditionFailed, error: "file_exists",
                                        reason: "The database could not be created, the file already exists.")
            default: throw CouchError.methodNotAllowed
            }
        case "_changes":
            guard method == .get || method == .post else { throw CouchError.methodNotAllowed }
            return try await changes(request)
        case "_revs_diff":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .json(.ok, try await onStoreThread { try self.revsDiff(request.json()) })
        case "_bulk_docs":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return try await written(request) { .json(.created, try self.bulkDocs(request, user: user)) }
        case "_bulk_get":
            guard method == .post else { throw CouchError.methodNotAllowed }
            // Its entries are resolved to revisions before the answer starts: store work.
            return try await onStoreThread {
                try self.bulkGet(request.json(), revs: request.flag("revs"), latest: request.flag("latest"),
                                 attachments: request.flag("attachments"),
                                 multipart: request.headers[.accept]?.contains("multipart/mixed") == true)
            }
        case "_all_docs":
            guard method == .get || method == .post else { throw CouchError.methodNotAllowed }
            return try await onStoreThread { try self.allDocs(request) }
        case "_ensure_full_commit":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .json(.created, ["ok": true, "instance_start_time": .string(Self.instanceStartTime)])
        case "_local":
            let id = rest.dropFirst().joined(separator: "/")
            guard !id.isEmpty else { throw CouchError.badRequest("a _local document needs an id") }
            return try await onStoreThread { try self.local(request, id: id, user: user) }
        case "_design":
            // CouchDB refuses a member's design document with 403, which
            // replicators skip; a 404 would end their job.
            guard method == .get || method == .head else {
                throw CouchError.forbidden("design documents are not stored by this gateway")
            }
            throw CouchError.notFound()
        case let id? where id.hasPrefix("_"):
            throw CouchError.notFound("unknown endpoint \(id)")
        case let id? where rest.count >= 2:
            // An id holding "/" arrives as one segment (%2F): more segments name an attachment.
            let name = rest.dropFirst().joined(separator: "/")
            return try await written(request) { try self.attachment(request, id: id, name: name, user: user) }
        case let id?:
            return try await written(request) { try self.document(request, id: id, user: user) }
        }
    }

    /// A request that may write, on a store thread; a write wakes the
    /// `_changes` waiters once it has committed.
    private func written(_ request: CouchRequest, _ work: @escaping @Sendable () throws -> Reply) async throws -> Reply {
        let writes = self.writes
        let reply = try await onStoreThread { request.isWrite ? try writes.serially(work) : try work() }
        if request.isWrite { await notifier.poke() }
        return reply
    }

    func databaseInfo() throws -> JSONValue {
        ["db_name": .string(config.databaseName), "doc_count": .int(Int64(try store.count())),
         "doc_del_count": .int(Int64(try store.deletedCount())),
         "update_seq": .string(String(try store.lastSequence())), "purge_seq": "0", "compact_running": false,
         "disk_format_version": 8, "instance_start_time": .string(Self.instanceStartTime),
         "sizes": ["active": 0, "external": 0, "file": 0]]
    }
}

/// Runs the gateway's writes one at a time, each with its owner check (on
/// store threads: blocking is theirs to do). SQLite takes one writer at a
/// time anyway; this makes the check that precedes a write part of it.
final class WriteSerializer: Sendable {
    private let lock = NSLock()
    func serially<T>(_ work: () throws -> T) rethrows -> T { try lock.withLock(work) }
}
