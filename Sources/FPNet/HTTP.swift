import Foundation

/// Sends one HTTP request and returns the response, whatever its status.
///
/// Implementations judge only the transport: a 404 or 500 is a response, not
/// an error (callers decide with `HTTPResponse.requireSuccess`). Failures to
/// get any response are thrown as `HTTPError`. `send` must not block the
/// calling thread: callers run on Swift's cooperative pool (two threads on a
/// two-core machine), which a waiting transfer would take from every task.
/// A cancelled caller gets `HTTPError.cancelled` soon after.
package protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

/// A transport that can also wait on the calling thread, for the few
/// synchronous callers (the config loader, which runs before any task
/// work starts). Never call `sendBlocking` from async code.
package protocol BlockingHTTPTransport: HTTPTransport {
    func sendBlocking(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse
}

extension BlockingHTTPTransport {
    /// For stand-ins that answer at once (tests); a real transport overrides it.
    package func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try sendBlocking(request)
    }
}

/// An HTTP method. A string, not an enum, because CouchDB also uses `COPY`.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    package init(stringLiteral value: String) { self.init(rawValue: value) }
    package var description: String { rawValue }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
}

/// Header fields in order, looked up case-insensitively. A list rather than a
/// dictionary because responses may repeat a name (`Set-Cookie`).
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package private(set) var fields: [Field] = []

    package init() {}
    package init(_ fields: [Field]) { self.fields = fields }
    package init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of a name; setting replaces every field of that name (nil removes them).
    package subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    package func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    package mutating func add(_ name: String, _ value: String) { fields.append(Field(name: name, value: value)) }

    package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

/// Limits of one request, in seconds.
package struct HTTPTimeouts: Sendable, Equatable {
    /// Time allowed to establish the connection (TCP and TLS).
    package var connect: Double
    /// Time allowed for the whole transfer, connection included.
    package var total: Double

    package init(connect: Double, total: Double) {
        self.connect = connect
        self.total = total
    }

    package static let `default` = HTTPTimeouts(connect: 10, total: 60)
}

package struct HTTPRequest: Sendable, Equatable {
    package var method: HTTPMethod
    package var url: URL
    package var headers: HTTPHeaders
    package var body: Data?
    package var timeouts: HTTPTimeouts

    package init(method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
                timeouts: HTTPTimeouts = .default) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
    }
}

package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    /// Headers of the final response (after any redirects).
    package var headers: HTTPHeaders
    package var body: Data

    package init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package var isSuccess: Bool { (200..<300).contains(status) }

    /// Returns self for a 2xx status, else throws `.status` with the start of the body.
    @discardableResult
    package func requireSuccess(url: URL) throws(HTTPError) -> HTTPResponse {
        guard isSuccess else {
            throw .status(url: HTTPError.displayURL(url.absoluteString), code: status,
                          body: HTTPError.snippet(body))
        }
        return self
    }
}

/// Why a request got no usable response. Descriptions are one line and never
/// contain request headers (so never an Authorization token) nor URL passwords.
package enum HTTPError: Error, Equatable, CustomStringConvertible {
    /// The URL is malformed or not http(s).
    case invalidURL(String)
    /// The request itself is unusable (for example a header value with a line break).
    case invalidRequest(String)
    /// No connection: refused, host not found, network down, connection dropped.
    case unreachable(url: String, reason: String)
    /// The connect or total timeout expired.
    case timeout(url: String, reason: String)
    /// TLS handshake or certificate verification failed.
    case tls(url: String, reason: String)
    /// A response arrived with a non-2xx status (from `HTTPResponse.requireSuccess`).
    case status(url: String, code: Int, body: String)
    /// Any other transfer failure.
    case failed(url: String, reason: String)
    /// The calling task was cancelled; the transfer was abandoned.
    case cancelled(url: String)

    package var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL \(url): only http:// and https:// URLs are supported"
        case .invalidRequest(let why): "invalid HTTP request: \(why)"
        case .unreachable(let url, let reason): "cannot reach \(url): \(reason)"
        case .timeout(let url, let reason): "request to \(url) timed out: \(reason)"
        case .tls(let url, let reason): "TLS failure with \(url): \(reason)"
        case .status(let url, let code, let body):
            body.isEmpty ? "\(url) answered HTTP \(code)" : "\(url) answered HTTP \(code): \(body)"
        case .failed(let url, let reason): "request to \(url) failed: \(reason)"
        case .cancelled(let url): "request to \(url) cancelled"
        }
    }

    /// The URL as shown in messages: any `user:password@` is replaced by `***@`.
    package static func displayURL(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.user != nil || parts.password != nil else { return url }
        parts.user = "***"
        parts.password = nil
        return parts.string ?? url
    }

    /// The start of a body as one short line, for error messages.
    static func snippet(_ body: Data, limit: Int = 200) -> String {
        let text = String(decoding: body.prefix(limit * 4), as: UTF8.self)
        let oneLine = text.split(whereSeparator: \.isNewline).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
        return oneLine.count > limit ? String(oneLine.prefix(limit)) + "…" : oneLine
    }
}
