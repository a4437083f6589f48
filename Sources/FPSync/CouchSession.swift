import FPCore
import FPNet
import Foundation
import Synchronization

/// A name/password session with a CouchDB-protocol server: `POST /_session`
/// with a form body (what CouchDB's own replicator sends), answered by an
/// `AuthSession` cookie that lives `Max-Age` seconds.
///
/// Renewal: once less than a tenth of the cookie's lifetime is left (60 s of
/// CouchDB's default 600), the next request logs in again with the password
/// first; a 401 on a request logs in again once and repeats it. Logging in
/// again, rather than waiting for the refreshed `Set-Cookie` CouchDB sends
/// along the way, also works after a day offline, when every cookie is long
/// dead. Concurrent requests that need a new cookie share one login. The
/// caller is told of each new cookie (`onRenew`) to store it.
package final class CouchSession: Sendable {
    package static let cookieName = "AuthSession"
    /// CouchDB's default `[chttpd_auth] timeout`, used when an answer has no `Max-Age`.
    static let defaultLifetime: Double = 600

    /// A cookie and when it stops working.
    package struct Cookie: Sendable, Equatable {
        package var value: String
        package var expiresAt: Date
        package var lifetime: Double
        package init(value: String, expiresAt: Date, lifetime: Double) {
            self.value = value
            self.expiresAt = expiresAt
            self.lifetime = lifetime
        }

        /// Less than 10 % of the lifetime left (or expired).
        func needsRenewal(now: Date) -> Bool { expiresAt.timeIntervalSince(now) < lifetime * 0.1 }
    }

    /// What `POST /_session` answered.
    package struct Answer: Sendable {
        /// The user the server names (`name`, else `userCtx.name`).
        package var name: String?
        /// The `AuthSession` cookie, if it set one.
        package var cookie: Cookie?
        /// An fprint gateway's bearer token, if it gave one.
        package var token: String?
    }

    package let sessionURL: URL
    package let name: String
    private let password: String
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date
    private let onRenew: @Sendable (Cookie) -> Void
    private let state: Mutex<State>

    private struct State {
        var cookie: Cookie
        /// The login under way, which every caller that needs a new cookie awaits.
        var renewal: Task<Result<Cookie, SyncError>, Never>?
    }

    package init(sessionURL: URL, name: String, password: String, cookie: Cookie, transport: any HTTPTransport,
                now: @escaping @Sendable () -> Date = { Date() }, onRenew: @escaping @Sendable (Cookie) -> Void = { _ in }) {
        self.sessionURL = sessionURL
        self.name = name
        self.password = password
        state = Mutex(State(cookie: cookie))
        self.transport = transport
        self.now = now
        self.onRenew = onRenew
    }

    /// The cookie to send now, after logging in again when it is about to expire.
    func currentCookie() async throws(SyncError) -> String {
        let cookie = state.withLock { $0.cookie }
        guard cookie.needsRenewal(now: now()) else { return cookie.value }
        return try await renewal(unless: nil).value
    }

    /// Logs in again after a 401 on `refused` (the `Cookie` header sent), unless
    /// another request has already replaced that cookie meanwhile.
    /// nil: log in again now (CouchDB took the cookie as no one's).
    package func renew(refused: String?) async throws(SyncError) {
        _ = try await renewal(unless: refused)
    }

    /// Joins the login under way, or starts one. With `refused`, a cookie
    /// already newer than the refused one is answered without a login.
    private func renewal(unless refused: String?) async throws(SyncError) -> Cookie {
        let task = state.withLock { state -> Task<Result<Cookie, SyncError>, Never> in
            if let running = state.renewal { return running }
            let current = state.cookie
            if let refused, refused != "\(Self.cookieName)=\(current.value)", !current.needsRenewal(now: now()) {
                return Task { .success(current) }
            }
            let login = Task { await self.loginForCookie() }
            state.renewal = login
            return login
        }
        return try await task.value.get()
    }

    /// One login; the new cookie replaces the old before the waiters resume.
    private func loginForCookie() async -> Result<Cookie, SyncError> {
        let result: Result<Cookie, SyncError>
        do throws(SyncError) {
            let answer = try await Self.login(sessionURL: sessionURL, name: name, password: password,
                                              transport: transport, now: now())
            result = .success(try cookie(of: answer))
        } catch {
            result = .failure(error)
        }
        state.withLock { state in
            if case .success(let fresh) = result { state.cookie = fresh }
            state.renewal = nil
        }
        if case .success(let fresh) = result { onRenew(fresh) }
        return result
    }

    /// The same on the calling thread, for synchronous callers (the config
    /// loader's headers): logs in again only through a blocking transport.
    func currentCookieBlocking() throws(SyncError) -> String {
        let cookie = state.withLock { $0.cookie }
        guard cookie.needsRenewal(now: now()), let blocking = transport as? any BlockingHTTPTransport else {
            return cookie.value
        }
        let answer = try Self.loginBlocking(sessionURL: sessionURL, name: name, password: password,
                                            transport: blocking, now: now())
        let fresh = try self.cookie(of: answer)
        state.withLock { $0.cookie = fresh }
        onRenew(fresh)
        return fresh.value
    }

    private func cookie(of answer: Answer) throws(SyncError) -> Cookie {
        guard let fresh = answer.cookie else {
            throw SyncError.authRejected("POST \(HTTPError.displayURL(sessionURL.absoluteString)) set no \(Self.cookieName) cookie")
        }
        return fresh
    }

    /// `POST /_session` with `name=…&password=…` as a form. 401 is
    /// `authRejected` with the server's reason; the password is never in a message.
    package static func login(sessionURL: URL, name: String, password: String, transport: any HTTPTransport,
                             now: Date = Date()) async throws(SyncError) -> Answer {
        let request = loginRequest(sessionURL: sessionURL, name: name, password: password)
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try await transport.send(request)
        } catch {
            if case .cancelled = error { throw .cancelled }
            throw .unreachable(error.description)
        }
        return try answer(response, sessionURL: sessionURL, now: now)
    }

    /// `login` on the calling thread.
    static func loginBlocking(sessionURL: URL, name: String, password: String, transport: any BlockingHTTPTransport,
                              now: Date = Date()) throws(SyncError) -> Answer {
        let request = loginRequest(sessionURL: sessionURL, name: name, password: password)
        let response: HTTPResponse
        do throws(HTTPError) {
            response = try transport.sendBlocking(request)
        } catch {
            throw .unreachable(error.description)
        }
        return try answer(response, sessionURL: sessionURL, now: now)
    }

    private static func loginRequest(sessionURL: URL, name: String, password: String) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: sessionURL,
            headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
            body: HTTPAuth.formBody([("name", name), ("password", password)]), timeouts: HTTPTimeouts(connect: 10, total: 30))
    }

    private static func answer(_ response: HTTPResponse, sessionURL: URL, now: Date) throws(SyncError) -> Answer {
        let what = "POST \(HTTPError.displayURL(sessionURL.absoluteString))"
        if response.status == 401 || response.status == 403 {
            throw SyncError.authRejected("\(what) answered \(response.status): \(RemoteDatabase.reason(response))")
        }
        guard response.isSuccess else {
            throw SyncError.protocolError("\(what) answered HTTP \(response.status): \(RemoteDatabase.reason(response))")
        }
        let json = try? CanonicalJSON.parse(response.body)
        return Answer(name: json?["name"]?.stringValue ?? json?["userCtx"]?["name"]?.stringValue,
                      cookie: cookie(in: response.headers, now: now), token: json?["token"]?.stringValue)
    }

    /// The `AuthSession` of a `Set-Cookie` answer with its lifetime from
    /// `Max-Age`; nil when absent or empty (CouchDB clears it on a 401).
    package static func cookie(in headers: HTTPHeaders, now: Date) -> Cookie? {
        for header in headers.values("Set-Cookie") {
            let attributes = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = attributes.first, first.hasPrefix(cookieName + "=") else { continue }
            let value = String(first.dropFirst(cookieName.count + 1))
            guard !value.isEmpty else { return nil }
            var lifetime = defaultLifetime
            for attribute in attributes.dropFirst() where attribute.lowercased().hasPrefix("max-age=") {
                if let seconds = Double(attribute.dropFirst("max-age=".count)), seconds > 0 { lifetime = seconds }
            }
            return Cookie(value: value, expiresAt: now.addingTimeInterval(lifetime), lifetime: lifetime)
        }
        return nil
    }
}
