import FPCore
import Foundation
import Hummingbird

/// The CouchDB endpoints, over `ReplicableStore`. One method per endpoint;
/// `handle` authenticates and dispatches on the decoded path segments.
struct CouchHandler: Sendable {
    let store: any ReplicableStore
    let config: GatewayConfig

    /// CouchDB's replicator compares this between `GET /db` and
    /// `_ensure_full_commit`; a constant keeps it stable across restarts.
    static let instanceStartTime = "0"
    static let ownerKey = "couchbase_sync_gateway_id"

    func handle(_ incoming: CouchRequest) async throws -> Reply {
        var request = incoming
        let segments = request.segments
        // `POST /_session` is where credentials are exchanged for a token.
        if segments == ["_session"], request.method == .post { return try createSession(request) }
        request.user = try authenticate(request)
        guard let user = request.user else { throw CouchError.unauthorized }

        guard let first = segments.first else {
            return .json(.ok, ["couchdb": "Welcome", "version": "3.3.0", "vendor": ["name": "fprint"]])
        }
        if first == "_session" {
            return .json(.ok, ["ok": true, "userCtx": ["name": .string(user.name), "roles": .array(user.roles.map { .string($0) })],
                               "info": ["authenticated": "bearer"]])
        }
        if first == "config" {
            let name = segments.dropFirst().joined(separator: "/")
            guard request.method == .get else { throw CouchError.methodNotAllowed }
            let base = "http://" + (request.authority ?? "127.0.0.1:5984")
            if name == "app-config.json", var app = config.appConfig {
                app["gatewayURL"] = .string("\(base)/\(config.databaseName)")
                app["authURL"] = .string("\(base)/_session")
                app["scenariosURL"] = .string("\(base)/config/scenarios.json")
                return .json(.ok, app)
            }
            if name == "scenarios.json", let scenarios = config.scenarios { return .json(.ok, scenarios) }
            guard let data = config.files[name] else { throw CouchError.notFound() }
            return .file(data, contentType: name.hasSuffix(".json") ? "application/json" : "application/octet-stream")
        }
        guard first == config.databaseName else {
            if segments.count == 1, request.method == .put {
                throw CouchError.forbidden("this gateway serves only the database \(config.databaseName)")
            }
            throw CouchError.notFound("Database does not exist.")
        }
        let rest = Array(segments.dropFirst())
        do {
            return try await route(request, rest, user)
        } catch let error as StoreError {
            throw CouchError.from(error)
        }
    }

    private func route(_ request: CouchRequest, _ rest: [String], _ user: GatewayUser) async throws -> Reply {
        let method = request.method
        switch rest.first {
        case nil:
            switch method {
            case .get: return .json(.ok, try databaseInfo())
            case .put: throw CouchError(status: .preconditionFailed, error: "file_exists",
                                        reason: "The database could not be created, the file already exists.")
            default: throw CouchError.methodNotAllowed
            }
        case "_changes":
            guard method == .get || method == .post else { throw CouchError.methodNotAllowed }
            return .json(.ok, try await changes(request))
        case "_revs_diff":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .json(.ok, try revsDiff(request.json()))
        case "_bulk_docs":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .json(.created, try bulkDocs(request.json(), user: user))
        case "_bulk_get":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .jsonText(.ok, try bulkGet(request.json(), revs: request.flag("revs"), latest: request.flag("latest")))
        case "_all_docs":
            guard method == .get || method == .post else { throw CouchError.methodNotAllowed }
            return .json(.ok, try allDocs(request))
        case "_ensure_full_commit":
            guard method == .post else { throw CouchError.methodNotAllowed }
            return .json(.created, ["ok": true, "instance_start_time": .string(Self.instanceStartTime)])
        case "_local":
            let id = rest.dropFirst().joined(separator: "/")
            guard !id.isEmpty else { throw CouchError.badRequest("a _local document needs an id") }
            return try local(request, id: id)
        case let id? where id.hasPrefix("_"):
            throw CouchError.notFound("unknown endpoint \(id)")
        case _:
            let id = rest.joined(separator: "/")
            return try document(request, id: id, user: user)
        }
    }

    // MARK: - Authentication

    func authenticate(_ request: CouchRequest) throws -> GatewayUser? {
        guard let header = request.headers[.authorization] else { throw CouchError.unauthorized }
        if header.hasPrefix("Bearer ") {
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            do {
                let claims = try config.tokens.verify(token)
                return GatewayUser(name: claims.subject, isAdmin: claims.isAdmin)
            } catch {
                // The reason (expired, forged) helps the user; the token is never echoed.
                throw CouchError(status: .unauthorized, error: "unauthorized", reason: error.description)
            }
        }
        if header.hasPrefix("Basic ") {
            guard let (name, password) = Self.basicCredentials(header),
                  let user = config.users.authenticate(name: name, password: password)
            else { throw CouchError(status: .unauthorized, error: "unauthorized", reason: "Name or password is incorrect.") }
            return user
        }
        throw CouchError.unauthorized
    }

    static func basicCredentials(_ header: String) -> (String, String)? {
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// `POST /_session` with Basic credentials (or a JSON `{name, password}`)
    /// answers CouchDB's session shape plus a bearer `token` for fprint clients.
    func createSession(_ request: CouchRequest) throws -> Reply {
        var user: GatewayUser?
        if let header = request.headers[.authorization], header.hasPrefix("Basic "),
           let (name, password) = Self.basicCredentials(header) {
            user = config.users.authenticate(name: name, password: password)
        } else if !request.body.isEmpty {
            let body = try request.json()
            if let name = body["name"]?.stringValue, let password = body["password"]?.stringValue {
                user = config.users.authenticate(name: name, password: password)
            }
        }
        guard let user else {
            throw CouchError(status: .unauthorized, error: "unauthorized", reason: "Name or password is incorrect.")
        }
        let token = config.tokens.issue(user: user.name, admin: user.isAdmin, ttlSeconds: config.sessionTTL)
        return .json(.ok, ["ok": true, "name": .string(user.name), "roles": .array(user.roles.map { .string($0) }),
                           "token": .string(token)])
    }

    // MARK: - Database

    func databaseInfo() throws -> JSONValue {
        ["db_name": .string(config.databaseName), "doc_count": .int(Int64(try store.count())), "doc_del_count": 0,
         "update_seq": .string(String(try store.lastSequence())), "purge_seq": "0", "compact_running": false,
         "disk_format_version": 8, "instance_start_time": .string(Self.instanceStartTime),
         "sizes": ["active": 0, "external": 0, "file": 0]]
    }

    /// Sequences are sent as strings: clients must treat them as opaque.
    static func parseSince(_ text: String?, last: Int64) throws -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        if text == "now" { return last }
        let trimmed = text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2
            ? String(text.dropFirst().dropLast()) : text
        guard let value = Int64(trimmed), value >= 0 else {
            throw CouchError.badRequest("since must be a sequence this gateway handed out")
        }
        return value
    }

    func changes(_ request: CouchRequest) async throws -> JSONValue {
        var query = request.query
        if request.method == .post, !request.body.isEmpty, let body = try? request.json().objectValue {
            for (k, v) in body { if let s = v.stringValue { query[k] = s } else if let i = v.intValue { query[k] = String(i) } }
        }
        let since = try Self.parseSince(query["since"], last: try store.lastSequence())
        var limit = Int.max
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else { throw CouchError.badRequest("limit must be a non-negative integer") }
            limit = value == 0 ? 1 : value
        }
        let allDocs = query["style"] == "all_docs"
        let includeDocs = query["include_docs"] == "true"
        var entries = try store.changeFeed(since: since, limit: limit)
        if entries.isEmpty, query["feed"] == "longpoll" {
            // Wait for a change (polling the store's sequence), up to `timeout`.
            var timeout = config.maxLongpoll
            if let ms = query["timeout"].flatMap(Int64.init), ms >= 0 { timeout = min(timeout, .milliseconds(ms)) }
            let deadline = ContinuousClock.now + timeout
            while entries.isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                entries = try store.changeFeed(since: since, limit: limit)
            }
        }
        var results: [JSONValue] = []
        results.reserveCapacity(entries.count)
        for entry in entries {
            let revs = allDocs ? entry.leaves : [entry.rev]
            var row: JSONValue = ["seq": .string(String(entry.seq)), "id": .string(entry.id),
                                  "changes": .array(revs.map { ["rev": .string($0.description)] })]
            if entry.deleted { row["deleted"] = true }
            if includeDocs, let content = try store.revision(id: entry.id, rev: entry.rev) {
                row["doc"] = Self.documentJSON(content, revs: false)
            }
            results.append(row)
        }
        let lastSeq = entries.last?.seq ?? since
        let pending = limit == Int.max ? 0 : try store.changeCount(since: lastSeq)
        return ["results": .array(results), "last_seq": .string(String(lastSeq)), "pending": .int(Int64(pending))]
    }

    func revsDiff(_ body: JSONValue) throws -> JSONValue {
        guard let object = body.objectValue else { throw CouchError.badRequest("_revs_diff needs an object of id → revisions") }
        var asked: [String: [Revision]] = [:]
        for (id, list) in object {
            guard let array = list.arrayValue else { throw CouchError.badRequest("revisions of \(id) must be an array") }
            asked[id] = try array.map { value in
                guard let text = value.stringValue, let rev = Revision(text) else {
                    throw CouchError.badRequest("invalid revision for \(id)")
                }
                return rev
            }
        }
        let missing = try store.revsDiff(asked)
        return .object(JSONObject(missing.mapValues { ["missing": .array($0.map { .string($0.description) })] }))
    }

    // MARK: - Writes

    /// Users may write only documents signed with their own id (admins: any),
    /// and may not change or delete a document someone else owns.
    func authorize(_ user: GatewayUser, id: String, body: JSONValue, deleted: Bool) throws {
        if user.isAdmin { return }
        if !deleted {
            guard body[Self.ownerKey]?.stringValue == user.name else {
                throw CouchError.forbidden("document \(id) must be signed with your id (\(Self.ownerKey) = \(user.name))")
            }
        }
        if let current = try store.document(id: id, includeDeleted: true),
           let owner = current.body[Self.ownerKey]?.stringValue, owner != user.name {
            throw CouchError.forbidden("document \(id) belongs to another user")
        }
    }

    /// Splits a posted document into id, revision, flags and the plain body.
    static func split(_ doc: JSONValue) throws -> (id: String?, rev: Revision?, deleted: Bool, history: [Revision]?, body: JSONValue) {
        guard var object = doc.objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
        let id = object["_id"]?.stringValue
        var rev: Revision?
        if let text = object["_rev"]?.stringValue {
            guard let parsed = Revision(text) else { throw CouchError.badRequest("Invalid rev format") }
            rev = parsed
        }
        let deleted = object["_deleted"]?.boolValue ?? false
        let history = RevisionContent.history(fromRevisions: object["_revisions"])
        if object["_revisions"] != nil, history == nil { throw CouchError.badRequest("invalid _revisions") }
        for key in object.keys where key.hasPrefix("_") { object[key] = nil }
        return (id, rev, deleted, history, .object(object))
    }

    func bulkDocs(_ body: JSONValue, user: GatewayUser) throws -> JSONValue {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        let newEdits = body["new_edits"]?.boolValue ?? true
        var results: [JSONValue] = []
        var accepted: [RevisionContent] = []
        for doc in docs {
            let parts = try Self.split(doc)
            guard let id = parts.id, !id.isEmpty else {
                if newEdits { results.append(["error": "bad_request", "reason": "a document id is required"]); continue }
                throw CouchError.badRequest("every document needs an _id with new_edits:false")
            }
            do {
                try authorize(user, id: id, body: parts.body, deleted: parts.deleted)
                if newEdits {
                    let rev = try store.edit(id: id, body: parts.body, parent: parts.rev, deleted: parts.deleted)
                    results.append(["ok": true, "id": .string(id), "rev": .string(rev.description)])
                } else {
                    guard let rev = parts.rev else { throw CouchError.badRequest("new_edits:false needs _rev") }
                    var history = parts.history ?? [rev]
                    if history.first != rev { history = [rev] }
                    accepted.append(RevisionContent(id: id, rev: rev, deleted: parts.deleted,
                                                    body: parts.deleted ? .object([:]) : parts.body, history: history))
                }
            } catch let error as CouchError {
                results.append(["id": .string(id), "error": .string(error.error), "reason": .string(error.reason)])
            } catch let error as StoreError {
                let couch = CouchError.from(error)
                results.append(["id": .string(id), "error": .string(couch.error), "reason": .string(couch.reason)])
            }
        }
        // Replicated revisions are stored in one transaction.
        if !accepted.isEmpty { try store.putReplicated(accepted, markSynced: false) }
        return .array(results)
    }

    // MARK: - Reads

    static func documentJSON(_ content: RevisionContent, revs: Bool) -> JSONValue {
        var object = content.body.objectValue ?? [:]
        object["_id"] = .string(content.id)
        object["_rev"] = .string(content.rev.description)
        if content.deleted { object["_deleted"] = true }
        if revs { object["_revisions"] = content.revisionsJSON }
        return .object(object)
    }

    /// `{"results":[{"id","docs":[{"ok":doc}|{"error":…}]}]}`, written as
    /// text: each revision goes out as stored, never parsed.
    func bulkGet(_ body: JSONValue, revs: Bool, latest: Bool) throws -> [UInt8] {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        func missing(_ id: String, _ rev: String) -> JSONValue {
            ["error": ["id": .string(id), "rev": .string(rev), "error": "not_found", "reason": "missing"]]
        }
        var out = Array(#"{"results":["#.utf8)
        for (index, item) in docs.enumerated() {
            guard let id = item["id"]?.stringValue else { throw CouchError.badRequest("every _bulk_get entry needs an id") }
            var wanted: [Revision] = []
            var missingText: String?
            if let text = item["rev"]?.stringValue {
                if let rev = Revision(text) {
                    wanted = latest ? try store.latestLeaves(id: id, from: rev) : [rev]
                    if wanted.isEmpty { missingText = text }
                } else {
                    missingText = text
                }
            } else if let winner = try store.leaves(id: id).first {
                wanted = [winner.rev]
            }
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"id":"#.utf8)
            CanonicalJSON.write(.string(id), into: &out)
            out += Array(#","docs":["#.utf8)
            for (n, rev) in wanted.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                if let text = try store.revisionText(id: id, rev: rev) {
                    out += Array(#"{"ok":"#.utf8)
                    out += text.documentJSON(revisions: revs)
                    out.append(UInt8(ascii: "}"))
                } else {
                    CanonicalJSON.write(missing(id, rev.description), into: &out)
                }
            }
            if wanted.isEmpty { CanonicalJSON.write(missing(id, missingText ?? "undefined"), into: &out) }
            out += Array("]}".utf8)
        }
        out += Array("]}".utf8)
        return out
    }

    func allDocs(_ request: CouchRequest) throws -> JSONValue {
        func jsonString(_ name: String) throws -> String? {
            guard let text = request.query[name] else { return nil }
            guard let value = try? CanonicalJSON.parse(text), let s = value.stringValue else {
                throw CouchError.badRequest("\(name) must be a JSON string")
            }
            return s
        }
        let includeDocs = request.flag("include_docs")
        var keys: [String]?
        if let text = request.query["keys"] {
            guard let array = (try? CanonicalJSON.parse(text))?.arrayValue else { throw CouchError.badRequest("keys must be a JSON array") }
            keys = array.compactMap(\.stringValue)
        }
        if request.method == .post {
            guard let array = try request.json()["keys"]?.arrayValue else { throw CouchError.badRequest("`keys` body member must be an array.") }
            keys = array.compactMap(\.stringValue)
        }
        var limit: Int?
        if let text = request.query["limit"] {
            guard let value = Int(text), value >= 0 else { throw CouchError.badRequest("limit must be a non-negative integer") }
            limit = value
        }
        let total = try store.count()
        var rows: [JSONValue] = []
        func row(_ id: String, rev: Revision, deleted: Bool) throws -> JSONValue {
            var value: JSONValue = ["rev": .string(rev.description)]
            if deleted { value["deleted"] = true }
            var row: JSONValue = ["id": .string(id), "key": .string(id), "value": value]
            if includeDocs {
                row["doc"] = deleted ? .null : (try store.revision(id: id, rev: rev)).map { Self.documentJSON($0, revs: false) } ?? .null
            }
            return row
        }
        if let keys {
            for key in keys.prefix(limit ?? Int.max) {
                if let doc = try store.leaves(id: key).first {
                    rows.append(try row(key, rev: doc.rev, deleted: doc.deleted))
                } else {
                    rows.append(["key": .string(key), "error": "not_found"])
                }
            }
        } else {
            let start = try jsonString("startkey") ?? jsonString("start_key")
            let end = try jsonString("endkey") ?? jsonString("end_key")
            for entry in try store.allDocs(startKey: start, endKey: end, limit: limit) {
                rows.append(try row(entry.id, rev: entry.rev, deleted: entry.deleted))
            }
        }
        return ["total_rows": .int(Int64(total)), "offset": 0, "rows": .array(rows)]
    }

    // MARK: - Single documents

    func document(_ request: CouchRequest, id: String, user: GatewayUser) throws -> Reply {
        switch request.method {
        case .get:
            return .json(.ok, try getDocument(request, id: id))
        case .put:
            let parts = try Self.split(try request.json())
            if let bodyID = parts.id, bodyID != id { throw CouchError.badRequest("the _id in the body does not match the URL") }
            try authorize(user, id: id, body: parts.body, deleted: parts.deleted)
            if request.query["new_edits"] == "false" {
                guard let rev = parts.rev else { throw CouchError.badRequest("new_edits=false needs _rev") }
                let history = parts.history.flatMap { $0.first == rev ? $0 : nil } ?? [rev]
                try store.putReplicated([RevisionContent(id: id, rev: rev, deleted: parts.deleted,
                                                         body: parts.deleted ? .object([:]) : parts.body, history: history)],
                                        markSynced: false)
                return .json(.created, ["ok": true, "id": .string(id), "rev": .string(rev.description)])
            }
            let parent = parts.rev ?? request.query["rev"].flatMap(Revision.init)
            let rev = try store.edit(id: id, body: parts.body, parent: parent, deleted: parts.deleted)
            return .json(.created, ["ok": true, "id": .string(id), "rev": .string(rev.description)])
        case .delete:
            guard let text = request.query["rev"], let rev = Revision(text) else {
                throw CouchError.conflict
            }
            try authorize(user, id: id, body: .object([:]), deleted: true)
            let newRev = try store.edit(id: id, body: .object([:]), parent: rev, deleted: true)
            return .json(.ok, ["ok": true, "id": .string(id), "rev": .string(newRev.description)])
        default:
            throw CouchError.methodNotAllowed
        }
    }

    func getDocument(_ request: CouchRequest, id: String) throws -> JSONValue {
        let revs = request.flag("revs")
        let latest = request.flag("latest")
        if let openRevs = request.query["open_revs"] {
            var wanted: [Revision] = []
            var unknown: [String] = []
            if openRevs == "all" {
                wanted = try store.leaves(id: id).map(\.rev)
            } else {
                guard let list = (try? CanonicalJSON.parse(openRevs))?.arrayValue else {
                    throw CouchError.badRequest("open_revs must be \"all\" or a JSON array of revisions")
                }
                for item in list {
                    guard let text = item.stringValue else { throw CouchError.badRequest("open_revs must list revisions") }
                    guard let rev = Revision(text) else { unknown.append(text); continue }
                    let found = latest ? try store.latestLeaves(id: id, from: rev) : [rev]
                    if found.isEmpty { unknown.append(text) }
                    wanted += found
                }
            }
            var answer: [JSONValue] = []
            for rev in wanted {
                if let content = try store.revision(id: id, rev: rev) {
                    answer.append(["ok": Self.documentJSON(content, revs: revs)])
                } else {
                    answer.append(["missing": .string(rev.description)])
                }
            }
            answer += unknown.map { ["missing": .string($0)] }
            return .array(answer)
        }
        let content: RevisionContent?
        if let text = request.query["rev"] {
            guard let rev = Revision(text) else { throw CouchError.badRequest("Invalid rev format") }
            let target = latest ? (try store.latestLeaves(id: id, from: rev).first ?? rev) : rev
            content = try store.revision(id: id, rev: target)
        } else {
            guard let winner = try store.leaves(id: id).first else { throw CouchError.notFound() }
            if winner.deleted { throw CouchError.notFound("deleted") }
            content = try store.revision(id: id, rev: winner.rev)
        }
        guard let content else { throw CouchError.notFound() }
        var json = Self.documentJSON(content, revs: revs)
        if request.flag("conflicts") {
            let conflicts = try store.conflicts(id: id)
            if !conflicts.isEmpty { json["_conflicts"] = .array(conflicts.map { .string($0.description) }) }
        }
        return json
    }

    func local(_ request: CouchRequest, id: String) throws -> Reply {
        switch request.method {
        case .get:
            guard let body = try store.localDocument(id: id) else { throw CouchError.notFound() }
            var object = body.objectValue ?? [:]
            object["_id"] = .string("_local/" + id)
            object["_rev"] = object["_rev"] ?? "0-1"
            return .json(.ok, .object(object))
        case .put:
            guard var object = try request.json().objectValue else { throw CouchError.badRequest("Document must be a JSON object") }
            // Local docs are not replicated; a counter revision like CouchDB's `0-N`.
            let previous = try store.localDocument(id: id)?["_rev"]?.stringValue
            let n = previous.flatMap { $0.split(separator: "-").last.flatMap { Int($0) } } ?? 0
            object["_id"] = nil
            object["_rev"] = .string("0-\(n + 1)")
            try store.putLocalDocument(id: id, body: .object(object))
            return .json(.created, ["ok": true, "id": .string("_local/" + id), "rev": .string("0-\(n + 1)")])
        case .delete:
            guard try store.deleteLocalDocument(id: id) else { throw CouchError.notFound() }
            return .json(.ok, ["ok": true, "id": .string("_local/" + id), "rev": "0-0"])
        default:
            throw CouchError.methodNotAllowed
        }
    }
}
