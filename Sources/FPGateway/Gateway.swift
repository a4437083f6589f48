import FPCore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// What the gateway serves and how it authenticates.
public struct GatewayConfig: Sendable {
    /// The one database name it serves (`/fprint`).
    public var databaseName: String
    public var tokens: TokenAuthority
    public var users: BasicUsers
    /// Largest request body accepted; larger ones get 413.
    public var bodyLimit: Int
    /// Lifetime of tokens issued by `POST /_session`.
    public var sessionTTL: Int64
    /// The app config served at `/config/app-config.json`; its gatewayURL,
    /// authURL and scenariosURL are rewritten to this gateway per request
    /// (from the Host the client used), so a team needs one server.
    public var appConfig: JSONValue?
    /// The scenarios served at `/config/scenarios.json`.
    public var scenarios: JSONValue?
    /// Other files served under `/config/…` (maps, environments), as is.
    public var files: [String: Data]
    /// Longest a longpoll `_changes` waits.
    public var maxLongpoll: Duration

    public init(databaseName: String = "fprint", tokens: TokenAuthority, users: BasicUsers = BasicUsers(),
                bodyLimit: Int = 32 << 20, sessionTTL: Int64 = 30 * 24 * 3600, appConfig: JSONValue? = nil,
                scenarios: JSONValue? = nil, files: [String: Data] = [:],
                maxLongpoll: Duration = .seconds(60)) {
        self.databaseName = databaseName
        self.tokens = tokens
        self.users = users
        self.bodyLimit = bodyLimit
        self.sessionTTL = sessionTTL
        self.appConfig = appConfig
        self.scenarios = scenarios
        self.files = files
        self.maxLongpoll = maxLongpoll
    }
}

/// Builds the gateway application over any replicable store.
public func buildGateway(
    store: any ReplicableStore, config: GatewayConfig, host: String = "127.0.0.1", port: Int = 5984,
    logger: Logger? = nil, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        responder: GatewayResponder(handler: CouchHandler(store: store, config: config)),
        configuration: .init(address: .hostname(host, port: port), serverName: "fprint-gateway"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger ?? Logger(label: "fprint.gateway"))
}

/// What a handler answers.
enum Reply: Sendable {
    case json(HTTPResponse.Status, JSONValue)
    /// JSON already written as text (revisions spliced from stored text).
    case jsonText(HTTPResponse.Status, [UInt8])
    case file(Data, contentType: String)
}

/// A CouchDB-style error: `{"error": …, "reason": …}` with a status.
struct CouchError: Error {
    var status: HTTPResponse.Status
    var error: String
    var reason: String

    static func badRequest(_ reason: String) -> CouchError { .init(status: .badRequest, error: "bad_request", reason: reason) }
    static func notFound(_ reason: String = "missing") -> CouchError { .init(status: .notFound, error: "not_found", reason: reason) }
    static func forbidden(_ reason: String) -> CouchError { .init(status: .forbidden, error: "forbidden", reason: reason) }
    static let unauthorized = CouchError(status: .unauthorized, error: "unauthorized",
                                         reason: "a valid bearer token or Basic credentials are required")
    static let conflict = CouchError(status: .conflict, error: "conflict", reason: "Document update conflict.")
    static let methodNotAllowed = CouchError(status: .methodNotAllowed, error: "method_not_allowed",
                                             reason: "method not allowed here")

    static func from(_ error: StoreError) -> CouchError {
        switch error {
        case .notFound: .notFound()
        case .conflict: .conflict
        case .alreadySynced(let id): .forbidden("document \(id) cannot be changed")
        case .invalid(let why): .badRequest(why)
        case .io(let why): .init(status: .internalServerError, error: "internal_server_error", reason: why)
        }
    }
}

/// A request reduced to what the CouchDB handlers need: the body is
/// collected (and always drained) before any handler runs.
struct CouchRequest: Sendable {
    var method: HTTPRequest.Method
    /// Path segments, percent-decoded one by one (so `%2F` inside an id stays in the id).
    var segments: [String]
    var query: [String: String]
    var headers: HTTPFields
    /// `host:port` the client addressed (for URLs that point back here).
    var authority: String?
    var body: Data
    var user: GatewayUser?

    func json() throws -> JSONValue {
        guard !body.isEmpty else { throw CouchError.badRequest("a JSON request body is required") }
        do {
            return try CanonicalJSON.parse(body)
        } catch {
            throw CouchError.badRequest("invalid UTF-8 JSON")
        }
    }

    func flag(_ name: String) -> Bool { query[name] == "true" }
}

struct GatewayResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let handler: CouchHandler

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        // Drain the whole body even when it is too large, so the connection
        // stays usable and the client gets its 413 instead of a reset.
        var collected = Data()
        var tooLarge = false
        for try await chunk in request.body {
            if tooLarge { continue }
            if collected.count + chunk.readableBytes > handler.config.bodyLimit {
                tooLarge = true
                collected = Data()
            } else {
                collected.append(contentsOf: chunk.readableBytesView)
            }
        }
        let isHead = request.method == .head
        do {
            if tooLarge {
                throw CouchError(status: .contentTooLarge, error: "too_large",
                                 reason: "the request body is larger than \(handler.config.bodyLimit) bytes")
            }
            let raw = request.uri.path
            let segments = raw.split(separator: "/", omittingEmptySubsequences: true).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            // Decoded here, once: Hummingbird's queryParameters already
            // percent-decode values, and decoding twice would corrupt `%25`.
            var query: [String: String] = [:]
            for pair in (request.uri.query ?? "").split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ s: Substring) -> String {
                    let spaced = s.replacingOccurrences(of: "+", with: " ")
                    return spaced.removingPercentEncoding ?? spaced
                }
                query[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
            }
            let couch = CouchRequest(method: isHead ? .get : request.method, segments: segments, query: query,
                                     headers: request.headers, authority: request.head.authority,
                                     body: collected, user: nil)
            switch try await handler.handle(couch) {
            case .json(let status, let value):
                return Self.response(status, CanonicalJSON.bytes(value), head: isHead)
            case .jsonText(let status, let text):
                return Self.response(status, text, head: isHead)
            case .file(let data, let contentType):
                var headers = HTTPFields()
                headers[.contentType] = contentType
                headers[.contentLength] = String(data.count)
                return Response(status: .ok, headers: headers,
                                body: isHead ? .init() : .init(byteBuffer: ByteBuffer(bytes: data)))
            }
        } catch let error as CouchError {
            let body = CanonicalJSON.bytes(["error": .string(error.error), "reason": .string(error.reason)])
            var response = Self.response(error.status, body, head: isHead)
            if error.status == .unauthorized {
                response.headers[.wwwAuthenticate] = "Bearer realm=\"fprint\""
            }
            return response
        }
    }

    static func response(_ status: HTTPResponse.Status, _ text: [UInt8], head: Bool) -> Response {
        var data = text
        data.append(0x0A)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "must-revalidate"
        if head {
            headers[.contentLength] = String(data.count)
            return Response(status: status, headers: headers)
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// Runs the gateway until SIGTERM/SIGINT (`fprint gateway`).
public func runGateway(store: any ReplicableStore, config: GatewayConfig, host: String, port: Int, logger: Logger,
                       onServerRunning: @escaping @Sendable (Int) async -> Void) async throws {
    let app = buildGateway(store: store, config: config, host: host, port: port, logger: logger,
                           onServerRunning: onServerRunning)
    try await app.runService()
}

/// A gateway running in this process (tests, benchmarks).
public struct RunningGateway: Sendable {
    public let port: Int
    let task: Task<Void, any Error>

    /// Stops the server and waits for it to finish.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Starts the gateway on `host:port` (0: a free port) and returns once it listens.
public func startGateway(store: any ReplicableStore, config: GatewayConfig, host: String = "127.0.0.1",
                         port: Int = 0) async throws -> RunningGateway {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "fprint.gateway")
    logger.logLevel = .warning
    let app = buildGateway(store: store, config: config, host: host, port: port, logger: logger) { bound in
        continuation.yield(bound)
        continuation.finish()
    }
    let task = Task {
        defer { continuation.finish() }
        try await app.runService(gracefulShutdownSignals: [])
    }
    for await bound in ports { return RunningGateway(port: bound, task: task) }
    _ = await task.result
    throw GatewaySetupError("the gateway did not start on \(host):\(port)")
}
