import FPCore
import Foundation
import HTTPTypes

/// `_local/…`: checkpoints and other never-replicated documents. Each user
/// has a namespace of their own, so one user cannot read, overwrite or
/// delete another's checkpoints; an admin reaches another user's with
/// `?owner=NAME`.
extension CouchHandler {
    /// Separates owner and id in the store's key; no user name contains it.
    static let localOwnerSeparator = "\u{1F}"

    func localKey(_ id: String, request: CouchRequest, user: GatewayUser) throws -> String {
        var owner = user.name
        if let asked = request.query["owner"], asked != user.name {
            guard user.isAdmin else { throw CouchError.forbidden("only admins may open another user's _local documents") }
            owner = asked
        }
        return owner + Self.localOwnerSeparator + id
    }

    func local(_ request: CouchRequest, id: String, user: GatewayUser) throws -> Reply {
        let key = try localKey(id, request: request, user: user)
        switch request.method {
        case .get:
            guard let body = try store.localDocument(id: key) else { throw CouchError.notFound() }
            var object = body.objectValue ?? [:]
            object["_id"] = .string("_local/" + id)
            object["_rev"] = object["_rev"] ?? "0-1"
            return .json(.ok, .object(object))
        case .put:
            guard var object = try request.json().objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
            // Local docs are not replicated; a counter revision like CouchDB's `0-N`.
            let previous = try store.localDocument(id: key)?["_rev"]?.stringValue
            let n = previous.flatMap { $0.split(separator: "-").last.flatMap { Int($0) } } ?? 0
            object["_id"] = nil
            object["_rev"] = .string("0-\(n + 1)")
            try store.putLocalDocument(id: key, body: .object(object))
            return .json(.created, ["ok": true, "id": .string("_local/" + id), "rev": .string("0-\(n + 1)")])
        case .delete:
            guard try store.deleteLocalDocument(id: key) else { throw CouchError.notFound() }
            return .json(.ok, ["ok": true, "id": .string("_local/" + id), "rev": "0-0"])
        default:
            throw CouchError.methodNotAllowed
        }
    }
}
