import FPCore
import Foundation
import Hummingbird

/// What a handler answers.
indirect enum Reply: Sendable {
    case json(HTTPResponse.Status, JSONValue)
    /// JSON already written as text (revisions spliced from stored text).
    case jsonText(HTTPResponse.Status, [UInt8])
    /// Bytes someone chose (an attachment, a file beside the app config),
    /// served as data: `UntrustedBytes`.
    case file(Data, contentType: String)
    /// An answer written piece by piece while it is produced: big
    /// `include_docs` answers cost one chunk of memory, not the whole answer.
    case stream(HTTPResponse.Status, contentType: String = "application/json",
                @Sendable (inout JSONChunkWriter) async throws -> Void)
    /// Another reply with extra headers (`Set-Cookie`).
    case withHeaders(HTTPFields, Reply)
}

/// Buffers answer bytes and hands them to the connection in chunks.
struct JSONChunkWriter {
    static let chunkSize = 64 << 10
    var writer: any ResponseBodyWriter
    var buffer: [UInt8] = []
    /// Bytes handed to the connection so far (for the access log).
    private(set) var written = 0
    /// Whether the answer ends with a newline, as JSON answers do; a
    /// multipart answer ends with its closing boundary, as CouchDB's.
    var endsWithNewline = true

    init(_ writer: any ResponseBodyWriter) {
        self.writer = writer
        buffer.reserveCapacity(Self.chunkSize)
    }

    mutating func append(_ bytes: some Sequence<UInt8>) async throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunkSize { try await flush() }
    }

    /// A piece of a chunk or more (a revision) goes to the connection as
    /// it is, after what is buffered: not copied into the buffer, which
    /// would keep its size for the rest of the answer.
    mutating func append(_ bytes: [UInt8]) async throws {
        guard bytes.count >= Self.chunkSize else {
            buffer.append(contentsOf: bytes)
            if buffer.count >= Self.chunkSize { try await flush() }
            return
        }
        try await flush()
        try await writer.write(ByteBuffer(bytes: bytes))
        written += bytes.count
    }

    mutating func append(_ text: String) async throws { try await append(text.utf8) }

    mutating func flush() async throws {
        guard !buffer.isEmpty else { return }
        try await writer.write(ByteBuffer(bytes: buffer))
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A CouchDB-style error: `{"error": …, "reason": …}` with a status.
struct CouchError: Error {
    var status: HTTPResponse.Status
    var error: String
    var reason: String
    /// Seconds the client should wait before trying again (503, 429).
    var retryAfter: Int?

    init(status: HTTPResponse.Status, error: String, reason: String, retryAfter: Int? = nil) {
        self.status = status
        self.error = error
        self.reason = reason
        self.retryAfter = retryAfter
    }

    static func badRequest(_ reason: String) -> CouchError { .init(status: .badRequest, error: "bad_request", reason: reason) }
    static func notFound(_ reason: String = "missing") -> CouchError { .init(status: .notFound, error: "not_found", reason: reason) }
    static func forbidden(_ reason: String) -> CouchError { .init(status: .forbidden, error: "forbidden", reason: reason) }
    static let unauthorized = CouchError(status: .unauthorized, error: "unauthorized",
                                         reason: "a valid bearer token, session cookie or Basic credentials are required")
    static let badCredentials = CouchError(status: .unauthorized, error: "unauthorized",
                                           reason: "Name or password is incorrect.")
    static let conflict = CouchError(status: .conflict, error: "conflict", reason: "Document update conflict.")
    static let methodNotAllowed = CouchError(status: .methodNotAllowed, error: "method_not_allowed",
                                             reason: "method not allowed here")
    static let readOnly = CouchError.forbidden("viewers may read but not write")

    /// A stored body that cannot be read back (`fprint check`, `fprint repair`).
    static func damaged(_ damage: DamagedDocument) -> CouchError {
        .init(status: .internalServerError, error: "damaged", reason: damage.description)
    }

    /// The error member of a bulk answer's entry for a damaged revision.
    static func damagedEntry(_ damage: DamagedDocument) -> JSONValue {
        ["id": .string(damage.id), "rev": damage.rev.map(JSONValue.string) ?? .null, "error": "damaged",
         "reason": .string(damage.reason)]
    }

    static func from(_ error: StoreError) -> CouchError {
        switch error {
        case .notFound: .notFound()
        case .conflict: .conflict
        case .alreadySynced(let id): .forbidden("document \(id) cannot be changed")
        case .invalid(let why): .badRequest(why)
        case .ambiguous: .badRequest(error.description)  // prefixes are the CLI's; the gateway names documents whole
        case .io(let why): .init(status: .internalServerError, error: "internal_server_error", reason: why)
        }
    }
}

/// A request reduced to what the CouchDB handlers need. The user is known
/// before the body is read; the body is read only for authenticated users
/// (and, bounded small, for `POST /_session`).
struct CouchRequest: Sendable {
    var method: HTTPRequest.Method
    /// Path segments, percent-decoded one by one (so `%2F` inside an id stays in the id).
    var segments: [String]
    var query: [String: String]
    var headers: HTTPFields
    /// The client's address (rate limits, access log).
    var client: String
    /// The port the client connected to (URLs that point back here).
    var localPort: Int
    /// The Host the request names (this gateway's origin, for cross-site checks).
    var host: String?
    /// How the user was established, as CouchDB's `/_session` names it.
    var authenticatedBy = "default"
    var body: Data
    var user: GatewayUser?

    init(method: HTTPRequest.Method, segments: [String], query: [String: String] = [:], headers: HTTPFields = [:],
         client: String = "", localPort: Int = 0, host: String? = nil, body: Data = Data(), user: GatewayUser? = nil) {
        self.host = host
        self.method = method
        self.segments = segments
        self.query = query
        self.headers = headers
        self.client = client
        self.localPort = localPort
        self.body = body
        self.user = user
    }

    func json() throws -> JSONValue {
        guard !body.isEmpty else { throw CouchError.badRequest("a JSON request body is required") }
        do {
            return try CanonicalJSON.parse(body)
        } catch {
            // CouchDB's words, then where and what.
            throw CouchError.badRequest("invalid UTF-8 JSON (\(error))")
        }
    }

    func flag(_ name: String) -> Bool { query[name] == "true" }

    /// `?rev=`; nil when absent, 400 when it is not a revision.
    func revisionQuery() throws -> Revision? {
        guard let text = query["rev"] else { return nil }
        guard let rev = Revision(text) else { throw CouchError.badRequest("Invalid rev format") }
        return rev
    }

    /// Reads (GET/HEAD, and POSTs that only query) are open to viewers.
    var isWrite: Bool { method == .put || method == .delete || method == .post || method == .patch }
    /// Whether a body follows the head (a length over 0, or chunks).
    var hasBody: Bool {
        if let length = headers[.contentLength].flatMap(Int.init) { return length > 0 }
        return headers[.transferEncoding] != nil
    }
}
