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

    /// Requests that change data; viewers are refused before their body is
    /// read. POSTs that only query, and a user's own `_local` documents, are not writes.
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
            return try bulkGet(request.json(), revs: request.flag("revs"), latest: request.flag("latest"),
                               attachments: request.flag("attachments"),
                               multipart: request.headers[.accept]?.contains("multipart/mixed") == true)
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
        let reply = try await onStoreThread(work)
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
