import FPCore
import FPNet
import Foundation

/// Why a sync stopped. Descriptions are one line and never contain a token.
public enum SyncError: Error, Equatable, CustomStringConvertible {
    /// No answer from the gateway (after retries), or it kept failing with 5xx.
    case unreachable(String)
    /// 401/403 on the database itself: the token or credentials were refused.
    case authRejected(String)
    /// The peer answered something the protocol does not allow.
    case protocolError(String)
    /// The local store failed.
    case store(String)

    public var description: String {
        switch self {
        case .unreachable(let why): "gateway unreachable: \(why)"
        case .authRejected(let why): "authentication rejected: \(why)"
        case .protocolError(let why): "replication protocol error: \(why)"
        case .store(let why): why
        }
    }
}

/// How requests prove who the user is. The secret never leaves this type
/// except in the one header it makes.
public enum SyncCredentials: Sendable {
    case none
    case bearer(String)
    case basic(user: String, password: String)
    /// Sync Gateway's session cookie (`SyncGatewaySession=…`).
    case cookie(name: String, value: String)

    func apply(to headers: inout HTTPHeaders) {
        switch self {
        case .none: break
        case .bearer(let token): headers["Authorization"] = "Bearer \(token)"
        case .basic(let user, let password):
            headers["Authorization"] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        case .cookie(let name, let value): headers["Cookie"] = "\(name)=\(value)"
        }
    }
}

/// When to try again. Connection errors and 5xx are retried with
/// exponential backoff; everything else is final.
public struct RetryPolicy: Sendable {
    public var attempts: Int
    public var initialDelay: Double
    public var maxDelay: Double
    public init(attempts: Int = 5, initialDelay: Double = 0.2, maxDelay: Double = 5) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
    }
    public static let none = RetryPolicy(attempts: 1, initialDelay: 0, maxDelay: 0)
}

/// One remote CouchDB-protocol database (`http://host:port/db`).
public struct RemoteDatabase: Sendable {
    public let url: URL
    public let transport: any HTTPTransport
    public let credentials: SyncCredentials
    public let retry: RetryPolicy
    public let timeouts: HTTPTimeouts
    let sleep: @Sendable (Double) -> Void

    public init(url: URL, transport: any HTTPTransport, credentials: SyncCredentials, retry: RetryPolicy = RetryPolicy(),
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: 10, total: 120),
                sleep: @escaping @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }) {
        // No trailing slash: paths are appended as `/segment`.
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.url = URL(string: text) ?? url
        self.transport = transport
        self.credentials = credentials
        self.retry = retry
        self.timeouts = timeouts
        self.sleep = sleep
    }

    /// The URL shown to users and hashed into the replication id: without
    /// user info, query or fragment.
    public var displayURL: String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? url.absoluteString
    }

    /// Percent-encodes one path segment (doc ids may hold `/`, `_local` ids `=`).
    static func encode(_ segment: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }

    func makeURL(_ path: [String], query: [(String, String)] = []) -> URL {
        var text = url.absoluteString
        for segment in path { text += "/" + Self.encode(segment) }
        if !query.isEmpty {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            text += "?" + query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }
                .joined(separator: "&")
        }
        return URL(string: text)!
    }

    /// Sends a request with retries. Returns any response that is not a
    /// retryable failure; 401 and 403 on the whole request become `authRejected`.
    public func send(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], json: JSONValue? = nil,
                     accept: String = "application/json") throws(SyncError) -> HTTPResponse {
        try send(method, path, query: query, jsonText: json.map { CanonicalJSON.data($0) }, accept: accept)
    }

    /// The same with a body that is already JSON text (pushed revisions are
    /// spliced from stored text, never parsed and re-serialised).
    public func send(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], jsonText body: Data?,
                     accept: String = "application/json") throws(SyncError) -> HTTPResponse {
        var headers: HTTPHeaders = ["Accept": accept]
        credentials.apply(to: &headers)
        if body != nil { headers["Content-Type"] = "application/json" }
        let request = HTTPRequest(method: method, url: makeURL(path, query: query), headers: headers, body: body,
                                  timeouts: timeouts)
        var delay = retry.initialDelay
        var lastFailure = ""
        for attempt in 1...max(1, retry.attempts) {
            do {
                let response = try transport.send(request)
                if response.status >= 500 {
                    lastFailure = "HTTP \(response.status) from \(displayURL)"
                } else {
                    if response.status == 401 {
                        throw SyncError.authRejected("\(displayURL) answered 401: \(Self.reason(response))")
                    }
                    return response
                }
            } catch let error as SyncError {
                throw error
            } catch let error as HTTPError {
                switch error {
                case .invalidURL, .invalidRequest: throw SyncError.protocolError(error.description)
                case .tls: throw SyncError.unreachable(error.description)
                default: lastFailure = error.description
                }
            } catch {
                lastFailure = "\(error)"
            }
            if attempt < retry.attempts {
                sleep(delay)
                delay = min(delay * 2, retry.maxDelay)
            }
        }
        throw SyncError.unreachable(lastFailure)
    }

    /// Sends and requires 2xx; the body is parsed as JSON.
    public func json(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], body: JSONValue? = nil)
        throws(SyncError) -> JSONValue
    {
        let response = try send(method, path, query: query, json: body)
        try Self.require(response, method, path)
        return try Self.parse(response.body, what: "\(method) \(path.joined(separator: "/"))")
    }

    static func require(_ response: HTTPResponse, _ method: HTTPMethod, _ path: [String]) throws(SyncError) {
        guard response.isSuccess else {
            let what = "\(method) /\(path.joined(separator: "/"))"
            if response.status == 403 {
                throw SyncError.authRejected("\(what) answered 403: \(reason(response))")
            }
            throw SyncError.protocolError("\(what) answered HTTP \(response.status): \(reason(response))")
        }
    }

    static func parse(_ data: Data, what: String) throws(SyncError) -> JSONValue {
        do {
            return try CanonicalJSON.parse(data)
        } catch {
            throw SyncError.protocolError("\(what): the answer is not valid JSON")
        }
    }

    /// CouchDB's `reason` (or `error`) of an error answer, as one short line.
    static func reason(_ response: HTTPResponse) -> String {
        if let value = try? CanonicalJSON.parse(response.body) {
            if let reason = value["reason"]?.stringValue, !reason.isEmpty { return String(reason.prefix(200)) }
            if let error = value["error"]?.stringValue { return error }
        }
        return "HTTP \(response.status)"
    }
}
