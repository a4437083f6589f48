import FPNet
import Foundation

/// How requests prove who the user is. The secret never leaves this type
/// except in the one header it makes.
package enum SyncCredentials: Sendable {
    case none
    /// An fprint gateway's token (`Authorization: Bearer`).
    case bearer(String)
    /// Name and password on every request (`user:password@` in the URL).
    case basic(user: String, password: String)
    /// A fixed session cookie (Sync Gateway's `SyncGatewaySession=…`).
    case cookie(name: String, value: String)
    /// A CouchDB name/password session: the `AuthSession` cookie, renewed
    /// before it expires.
    case session(CouchSession)

    /// Sets the header of these credentials; a session close to expiry logs in again first.
    package func apply(to headers: inout HTTPHeaders) async throws(SyncError) {
        if case .session(let session) = self {
            headers["Cookie"] = "\(CouchSession.cookieName)=\(try await session.currentCookie())"
        } else {
            applyFixed(to: &headers)
        }
    }

    /// The same on the calling thread, for synchronous callers (config fetches).
    package func applyBlocking(to headers: inout HTTPHeaders) throws(SyncError) {
        if case .session(let session) = self {
            headers["Cookie"] = "\(CouchSession.cookieName)=\(try session.currentCookieBlocking())"
        } else {
            applyFixed(to: &headers)
        }
    }

    private func applyFixed(to headers: inout HTTPHeaders) {
        switch self {
        case .none, .session: break
        case .bearer(let token): headers["Authorization"] = "Bearer \(token)"
        case .basic(let user, let password): headers["Authorization"] = HTTPAuth.basic(user: user, password: password)
        case .cookie(let name, let value): headers["Cookie"] = "\(name)=\(value)"
        }
    }

    /// The user these credentials name without asking the server, if any.
    package var userName: String? {
        switch self {
        case .basic(let user, _): user
        case .session(let session): session.name
        default: nil
        }
    }
}
