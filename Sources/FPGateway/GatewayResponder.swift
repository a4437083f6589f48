import FPCore
import FPDashboard
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// HTTP in, CouchDB out. In this order: the path, the user (from the headers
/// alone), the viewer rule, then the body (bounded by the per-request limit
/// and the shared `BodyBudget`), the handler, and one access-log line.
struct GatewayResponder: HTTPResponder {
    typealias Context = ChannelContext
    let handler: CouchHandler
    let budget: BodyBudget
    let accessLog: AccessLog?
    /// The web dashboard (`/_dashboard/…`, and `GET /` from a browser).
    let dashboard: Dashboard?
    /// Proxies whose `Forwarded`/`X-Forwarded-For` name the client.
    let proxies: TrustedProxies

    var config: GatewayConfig { handler.config }

    func respond(to request: Request, context: ChannelContext) async throws -> Response {
        let started = ContinuousClock.now
        let client = proxies.client(peer: Self.peerAddress(context.channel), headers: request.headers)
        if let dashboard, Dashboard.handles(path: request.uri.path, method: request.method, accept: request.headers[.accept]) {
            let response = await dashboard.respond(to: request, client: client, closed: ConnectionClosed(context.channel))
            var entry = AccessLog.Entry(client: client, method: request.method.rawValue, path: request.uri.path)
            entry.status = response.status.code
            entry.bytes = response.headers[.contentLength].flatMap(Int.init) ?? 0
            accessLog?.write(entry, started: started)
            return response
        }
        let isHead = request.method == .head
        var entry = AccessLog.Entry(client: client, method: request.method.rawValue, path: request.uri.path)
        let response: Response
        var sessionPath = false
        do {
            let couch = CouchRequest(
                method: isHead ? .get : request.method, segments: try Self.segments(request.uri.path),
                query: FormBody.parse(request.uri.query ?? ""), headers: request.headers,
                client: client, localPort: context.channel.localAddress?.port ?? 0,
                host: request.head.authority ?? request.headers[HTTPField.Name("Host")!])
            sessionPath = couch.segments == ["_session"]
            let reply = try await answer(couch, body: request.body, user: &entry.user)
            response = try Self.response(reply, head: isHead, log: accessLog, entry: entry, started: started)
            // A streamed body logs itself once written (its size is known then).
            if case .stream = reply.base, !isHead { return response }
        } catch let error as CouchError {
            response = errorResponse(error, head: isHead, sessionPath: sessionPath)
        }
        entry.status = response.status.code
        entry.bytes = response.headers[.contentLength].flatMap(Int.init) ?? 0
        accessLog?.write(entry, started: started)
        return response
    }

    /// The handler's reply; `user` is set as soon as the request is
    /// authenticated, so a request that fails later is logged with its user.
    private func answer(_ incoming: CouchRequest, body: RequestBody, user loggedUser: inout String?) async throws -> Reply {
        var request = incoming
        let own = CrossSite.ownOrigins(publicURL: config.publicURL, host: request.host)
        if request.segments == ["_session"], request.method == .post {
            // Another site's page must not log a browser in (as the attacker's account).
            guard !CrossSite.isForeign(request.headers, own: own) else {
                throw CouchError.forbidden("a login from another site's page is refused")
            }
            let reservation = BodyReservation(budget: budget, weight: 1)
            defer { reservation.release() }
            request.body = try await collect(body, limit: CouchHandler.sessionBodyLimit, contentLength: request.headers,
                                             into: reservation)
            return try await handler.createSession(request)
        }
        if request.segments == ["_session"], request.method == .delete { return handler.endSession(request) }
        let identity = try await handler.authenticator.identify(request.headers, client: request.client)
        let user = identity.user
        loggedUser = user.name
        request.user = user
        request.authenticatedBy = identity.method
        if identity.method == "cookie", request.isWrite, !CrossSite.isSameOriginOrNoBrowser(request.headers, own: own) {
            throw CouchError.forbidden("a change sent from another site's page with this gateway's session cookie is refused")
        }
        if user.role == .viewer, handler.isDataWrite(request) { throw CouchError.readOnly }
        if let refusal = handler.bodyTypeRefusal(request) { throw refusal }
        // The reservation lasts until the handler is done with the body: a
        // parsed body costs several times its text while it is stored.
        let reservation = BodyReservation(budget: budget, weight: Self.workingSetFactor)
        defer { reservation.release() }
        let limit = handler.bodyLimit(for: request)
        request.body = try await collect(body, limit: limit, contentLength: request.headers, into: reservation)
        do {
            return try await handler.handle(request)
        } catch let error as StoreError {
            throw CouchError.from(error)
        } catch let damage as DamagedDocument {
            handler.authenticator.logger.error("damaged document", metadata: ["detail": .string(damage.description)])
            throw CouchError.damaged(damage)
        }
    }

    /// Reads a body within `limit` and the shared budget. A declared length
    /// is checked before a byte is read; a chunked body as it arrives.
    private func collect(_ body: RequestBody, limit: Int, contentLength headers: HTTPFields,
                         into reservation: BodyReservation) async throws -> Data {
        let declared = headers[.contentLength].flatMap(Int.init)
        if let declared, declared > limit { throw Self.tooLarge(limit) }
        if let declared, declared > 0 { try reservation.grow(to: declared) }
        var collected = Data()
        if let declared { collected.reserveCapacity(declared) }
        for try await chunk in body {
            let size = collected.count + chunk.readableBytes
            guard size <= limit else { throw Self.tooLarge(limit) }
            try reservation.grow(to: size)
            collected.append(contentsOf: chunk.readableBytesView)
        }
        return collected
    }

    /// Memory a body costs while it is handled, per byte of its text: the
    /// text, its parsed tree and the canonical text written to the store.
    static let workingSetFactor = 3

    static func tooLarge(_ limit: Int) -> CouchError {
        CouchError(status: .contentTooLarge, error: "too_large", reason: "the request body is larger than \(limit) bytes")
    }

    /// Path segments percent-decoded one by one (so `%2F` inside an id stays
    /// in the id). A segment that does not decode to UTF-8 text (`%ZZ`, a
    /// lone `%`, `%FF`, an encoded surrogate) is refused rather than taken as typed.
    static func segments(_ path: String) throws -> [String] {
        try path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            guard let decoded = String(segment).removingPercentEncoding else {
                throw CouchError.badRequest("the path segment \(segment.prefix(80)) is not valid percent-encoded UTF-8")
            }
            try DocumentIDs.check(decoded, "the path segment \(segment.prefix(80))")
            return decoded
        }
    }

    static func peerAddress(_ channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "local"
    }

    static func response(_ reply: Reply, head: Bool, log: AccessLog?, entry: AccessLog.Entry,
                         started: ContinuousClock.Instant) throws -> Response {
        switch reply {
        case .json(let status, let value):
            return jsonResponse(status, CanonicalJSON.bytes(value), head: head)
        case .jsonText(let status, let text):
            return jsonResponse(status, text, head: head)
        case .file(let data, let contentType):
            var headers = HTTPFields()
            headers[.contentType] = contentType
            headers[.contentLength] = String(data.count)
            // An attachment or a served file (an SVG can hold script) is data, never a page of this origin.
            UntrustedBytes.mark(&headers)
            return Response(status: .ok, headers: headers, body: head ? .init() : .init(byteBuffer: ByteBuffer(bytes: data)))
        case .stream(let status, let contentType, let produce):
            var headers = HTTPFields()
            headers[.contentType] = contentType
            headers[.cacheControl] = "must-revalidate"
            if head { return Response(status: status, headers: headers) }
            return Response(status: status, headers: headers, body: ResponseBody { writer in
                var out = JSONChunkWriter(writer)
                var logged = entry
                logged.status = status.code
                defer { log?.write(logged, started: started) }
                try await produce(&out)
                if out.endsWithNewline { try await out.append("\n") }
                try await out.flush()
                logged.bytes = out.written
                try await writer.finish(nil)
            })
        case .withHeaders(let extra, let inner):
            var response = try Self.response(inner, head: head, log: log, entry: entry, started: started)
            for field in extra { response.headers[field.name] = field.value }
            return response
        }
    }

    static func jsonResponse(_ status: HTTPResponse.Status, _ text: [UInt8], head: Bool) -> Response {
        var data = text
        data.append(0x0A)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "must-revalidate"
        headers[.contentLength] = String(data.count)
        if head { return Response(status: status, headers: headers) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func errorResponse(_ error: CouchError, head: Bool, sessionPath: Bool) -> Response {
        let body = CanonicalJSON.bytes(["error": .string(error.error), "reason": .string(error.reason)])
        var response = Self.jsonResponse(error.status, body, head: head)
        if error.status == .unauthorized {
            response.headers[.wwwAuthenticate] = "Bearer realm=\"fprint\""
            // CouchDB clears the session cookie on a failed login.
            if sessionPath { response.headers[.setCookie] = CouchHandler.sessionCookie("", maxAge: 0, secure: config.servedOverHTTPS) }
        }
        if let seconds = error.retryAfter { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}

extension Reply {
    /// The reply under any added headers.
    var base: Reply {
        if case .withHeaders(_, let inner) = self { return inner.base }
        return self
    }
}
