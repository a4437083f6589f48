import FPCore
import HTTPTypes

/// Who looks at the dashboard.
package struct DashboardUser: Sendable, Equatable {
    package var name: String
    package var role: GatewayRole

    package init(name: String, role: GatewayRole) {
        self.name = name
        self.role = role
    }
}

/// Why a login was refused; the text is safe to show (it never holds the password or token).
package enum LoginRefusal: Error, Equatable {
    case badCredentials
    /// Too many failed logins from this name or address: try again after `retryAfter` seconds.
    case throttled(retryAfter: Int)
}

/// A session made by a login: the user and the token the `AuthSession` cookie carries.
package struct DashboardSession: Sendable {
    package var user: DashboardUser
    package var token: String
    /// Seconds the cookie lives (the token's own lifetime).
    package var maxAge: Int64

    package init(user: DashboardUser, token: String, maxAge: Int64) {
        self.user = user
        self.token = token
        self.maxAge = maxAge
    }
}

/// A credential the gateway issued (a token or a login session), for the admin page.
package struct IssuedCredential: Sendable, Equatable {
    package var id: String
    package var user: String
    package var role: GatewayRole
    /// What it is: "fprint gateway token", "dashboard login", …
    package var note: String
    package var issuedAt: Int64
    package var expiresAt: Int64
    package var revoked: Bool
    /// A session ended because its user logged in more often since (each keeps their newest few).
    package var superseded: Bool

    package init(id: String, user: String, role: GatewayRole, note: String, issuedAt: Int64, expiresAt: Int64, revoked: Bool,
                 superseded: Bool = false) {
        (self.id, self.user, self.role, self.note) = (id, user, role, note)
        (self.issuedAt, self.expiresAt, self.revoked, self.superseded) = (issuedAt, expiresAt, revoked, superseded)
    }
}

/// Why no token was issued; the text is safe to show.
package struct IssueRefusal: Error, Equatable {
    package let text: String
    package init(_ text: String) { self.text = text }
}

/// How the dashboard checks people, supplied by the gateway (its users file,
/// token secret and guess throttle): the dashboard module never sees them,
/// and the gateway's own `_session` and the dashboard accept the same cookie.
package protocol DashboardAccess: Sendable {
    /// The user of the request's `AuthSession` cookie; nil without one, or when it is invalid or expired.
    func sessionUser(_ headers: HTTPFields) -> DashboardUser?
    /// A name and password of the users file (throttled as every login is),
    /// or, with an empty name, a token pasted into the password field.
    func login(name: String, password: String, client: String) async throws(LoginRefusal) -> DashboardSession
    /// Ends the session of the request's cookie on the server (logout).
    func logout(_ headers: HTTPFields)
    /// The users file's names and roles, for the admin page.
    func accounts() -> [DashboardUser]
    /// A token for `user` signed with the gateway's secret, issued by an
    /// admin on the admin page (as `fprint gateway token` does on its host),
    /// token-only when asked (a user without a users-file line); or why none
    /// was (not recorded, so it could not be revoked; the wrong kind for the users file).
    func issueToken(for user: DashboardUser, ttlSeconds: Int64, tokenOnly: Bool, by admin: DashboardUser) -> Result<String, IssueRefusal>
    /// Tokens and sessions the gateway issued that have not expired.
    func credentials() -> [IssuedCredential]
    /// Revokes one; false when there is no such live credential.
    func revoke(id: String, by admin: DashboardUser) -> Bool
}
