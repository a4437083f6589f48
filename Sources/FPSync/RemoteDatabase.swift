import FPCore
import FPHex
import FPNet
import Foundation

/// Why a sync stopped. Descriptions are one line and never contain a token.
package enum SyncError: Error, Equatable, CustomStringConvertible {
    /// No answer from the gateway (after retries), or it kept failing with 5xx.
    case unreachable(String)
    /// 401/403 on the database itself: the token or credentials were refused.
    case authRejected(String)
    /// The peer answered something the protocol does not allow.
    case protocolError(String)
    /// An unsigned document would be pushed, but no user is known to sign it
    /// with (the id of the first such document). Nothing goes unsigned.
    case noSigner(String)
    /// The local store failed.
    case store(String)
    /// The task running the sync was cancelled (Ctrl-C); checkpoints so far are kept.
    case cancelled

    package var description: String {
        switch self {
        case .unreachable(let why): "gateway unreachable: \(why)"
        case .authRejected(let why): "authentication rejected: \(why)"
        case .protocolError(let why): "replication protocol error: \(why)"
        case .noSigner(let id):
            "cannot tell who you are: the gateway's _session names no user for these credentials, so unsigned documents (\(id) first) are not pushed; use `fprint login --user NAME`, a token, or user:password@ in the URL"
        case .store(let why): why
        case .cancelled: "sync interrupted; what was sent and received so far is kept, and the next sync goes on from there"
        }
    }
}

/// When to try again. Connection errors and 5xx are retried with
/// exponential backoff; everything else is final. A server that is up but
/// busy (503 or 429 with `Retry-After`, as `fprint gateway` sheds load when
/// many collectors push at once) is asked again after the time it names,
/// without spending an attempt, for up to `busyPatience` seconds in all.
package struct RetryPolicy: Sendable {
    package var attempts: Int
    package var initialDelay: Double
    package var maxDelay: Double
    package var busyPatience: Double
    package init(attempts: Int = 5, initialDelay: Double = 0.2, maxDelay: Double = 5, busyPatience: Double = 120) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.busyPatience = busyPatience
    }
    package static let none = RetryPolicy(attempts: 1, initialDelay: 0, maxDelay: 0, busyPatience: 0)

    /// The longest `Retry-After` waited for at once.
    static let longestBusyWait = 30.0

    /// Seconds a busy server asked to wait (503 or 429 with `Retry-After` in seconds), if it did.
    static func busyWait(_ response: HTTPResponse) -> Double? {
        guard response.status == 503 || response.status == 429,
              let text = response.headers["Retry-After"]?.trimmingCharacters(in: .whitespaces),
              let seconds = Int(text), seconds >= 0 else { return nil }
        return min(Double(seconds), longestBusyWait)
    }
}

/// One remote CouchDB-protocol database (`http://host:port/db`).
package struct RemoteDatabase: Sendable {
    package let url: URL
    package let transport: any HTTPTransport
    package let credentials: SyncCredentials
    package let retry: RetryPolicy
    package let timeouts: HTTPTimeouts
    let sleep: @Sendable (Double) async -> Void

    package init(url: URL, transport: any HTTPTransport, credentials: SyncCredentials, retry: RetryPolicy = RetryPolicy(),
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: 10, total: 120),
                sleep: @escaping @Sendable (Double) async -> Void = { try? await Task.sleep(for: .seconds($0)) }) {
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
    package var displayURL: String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? url.absoluteString
    }

    func makeURL(_ path: [String], query: [(String, String)] = []) -> URL {
        var text = url.absoluteString
        // One segment each: doc ids may hold `/`, `_local` ids `=`.
        for segment in path { text += "/" + PercentEncoding.encode(segment) }
        if !query.isEmpty {
            text += "?" + query.map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    /// Sends a request with retries. Returns any response that is not a
    /// retryable failure; 401 (and CouchDB's 400s for a credential it cannot
    /// read) become `authRejected`. A session cookie refused with 401 logs in
    /// again once and repeats the request.
    package func send(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], json: JSONValue? = nil,
                     accept: String = "application/json") async throws(SyncError) -> HTTPResponse {
        try await send(method, path, query: query, jsonText: json.map { CanonicalJSON.data($0) }, accept: accept)
    }

    /// The same with a body that is already JSON text (pushed revisions are
    /// spliced from stored text, never parsed and re-serialised).
    package func send(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], jsonText body: Data?,
                     accept: String = "application/json") async throws(SyncError) -> HTTPResponse {
        let url = makeURL(path, query: query)
        let (response, cookie) = try await sendWithRetries(method, url, body: body, accept: accept)
        if response.status == 401, case .session(let session) = credentials {
            try await session.renew(refused: cookie)
            let (again, _) = try await sendWithRetries(method, url, body: body, accept: accept)
            try rejectCredentialErrors(again, method, url)
            return again
        }
        try rejectCredentialErrors(response, method, url)
        return response
    }

    /// The response and the header value of the credentials it was sent with
    /// (a session renews once per refused cookie, not once per caller).
    private func sendWithRetries(_ method: HTTPMethod, _ url: URL, body: Data?, accept: String) async throws(SyncError)
        -> (HTTPResponse, String?)
    {
        var delay = retry.initialDelay
        var lastFailure = ""
        var busyWaited = 0.0
        var attempt = 1
        while attempt <= max(1, retry.attempts) {
            // Headers per attempt: a session may have been renewed meanwhile.
            var headers: HTTPHeaders = ["Accept": accept]
            try await credentials.apply(to: &headers)
            if body != nil { headers["Content-Type"] = "application/json" }
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeouts: timeouts)
            var busyWait: Double?
            do throws(HTTPError) {
                let response = try await transport.send(request)
                if let wait = RetryPolicy.busyWait(response), busyWaited + wait <= retry.busyPatience {
                    busyWait = wait
                } else if response.status >= 500 {
                    lastFailure = "\(describe(method, url)) answered HTTP \(response.status)"
                } else {
                    return (response, headers["Cookie"])
                }
            } catch {
                switch error {
                case .invalidURL, .invalidRequest: throw .protocolError(error.description)
                case .tls: throw .unreachable(error.description)
                case .cancelled: throw .cancelled
                default: lastFailure = error.description
                }
            }
            if let wait = busyWait {
                // Up and asking to be asked later: not a failure. A share of the wait more,
                // drawn at random, so that clients turned away together do not return together.
                let spread = wait * Double.random(in: 0..<0.5)
                busyWaited += wait + spread
                await sleep(wait + spread)
                if Task.isCancelled { throw .cancelled }
                continue
            }
            if attempt < retry.attempts {
                await sleep(delay)
                delay = min(delay * 2, retry.maxDelay)
            }
            if Task.isCancelled { throw .cancelled }
            attempt += 1
        }
        throw SyncError.unreachable(lastFailure)
    }

    /// 401, and the 400s CouchDB gives a bearer token or cookie it cannot
    /// read (`Malformed token`, `Bad HMAC`, a malformed `AuthSession`), are
    /// credential failures, not protocol ones.
    private func rejectCredentialErrors(_ response: HTTPResponse, _ method: HTTPMethod, _ url: URL) throws(SyncError) {
        let reason = response.status == 401 || response.status == 400 ? Self.reason(response) : ""
        if response.status == 401 || (response.status == 400 && Self.isCredentialReason(reason)) {
            throw SyncError.authRejected("\(describe(method, url)) answered \(response.status): \(reason)")
        }
    }

    static func isCredentialReason(_ reason: String) -> Bool {
        let lowered = reason.lowercased()
        return ["malformed token", "bad hmac", "malformed authsession cookie", "invalid token"].contains {
            lowered.contains($0)
        }
    }

    /// `GET http://host:5984/db/_changes`: the method and the whole path,
    /// never user info or the query.
    func describe(_ method: HTTPMethod, _ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "\(method) \(displayURL)" }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return "\(method) \(parts.string ?? displayURL)"
    }

    /// Sends and requires 2xx; the body is parsed as JSON.
    package func json(_ method: HTTPMethod, _ path: [String], query: [(String, String)] = [], body: JSONValue? = nil)
        async throws(SyncError) -> JSONValue
    {
        let response = try await send(method, path, query: query, json: body)
        try require(response, method, path)
        return try Self.parse(response.body, what: describe(method, makeURL(path)))
    }

    /// 2xx, else `authRejected` for 403 and `protocolError` for the rest,
    /// naming the method and the full path.
    package func require(_ response: HTTPResponse, _ method: HTTPMethod, _ path: [String]) throws(SyncError) {
        guard response.isSuccess else {
            let what = describe(method, makeURL(path))
            if response.status == 403 {
                throw SyncError.authRejected("\(what) answered 403: \(Self.reason(response))")
            }
            throw SyncError.protocolError("\(what) answered HTTP \(response.status): \(Self.reason(response))")
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
