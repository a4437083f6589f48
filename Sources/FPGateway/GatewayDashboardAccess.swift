import FPCore
import FPDashboard
import Foundation
import HTTPTypes
import Logging

/// The dashboard's logins, checked as every other request's: the same
/// users file, tokens, ledger and guess throttle, and the same `AuthSession` cookie.
struct GatewayDashboardAccess: DashboardAccess {
    let authenticator: Authenticator
    let sessionTTL: Int64

    func sessionUser(_ headers: HTTPFields) -> DashboardUser? {
        guard let token = Authenticator.sessionCookie(headers), let (user, _) = try? authenticator.verify(token) else { return nil }
        return DashboardUser(name: user.name, role: user.role)
    }

    func login(name: String, password: String, client: String) async throws(LoginRefusal) -> DashboardSession {
        do {
            let issued: (token: String, claims: TokenClaims)
            if name.isEmpty {
                // A pasted token: a session of its own that ends with the token at the latest. A
                // forged one cannot be guessed, but it costs a failure of the client's like a password.
                let attempt = GuessThrottle.Attempt(client: client, user: nil)
                try await authenticator.takeTurn(attempt)
                do {
                    issued = try authenticator.openSession(fromToken: password, ttlSeconds: sessionTTL, note: "dashboard login (token)")
                } catch {
                    await authenticator.throttle.failed(attempt)
                    throw CouchError.badCredentials
                }
                await authenticator.throttle.succeeded(attempt)
            } else {
                let user = try await authenticator.login(name: name, password: password, client: client)
                issued = try authenticator.openSession(for: user, ttlSeconds: sessionTTL, note: "dashboard login")
            }
            let left = max(0, issued.claims.expiresAt - Int64(Date().timeIntervalSince1970))
            return DashboardSession(user: DashboardUser(name: issued.claims.subject, role: issued.claims.role), token: issued.token,
                                    maxAge: left)
        } catch let error as CouchError where error.status == .tooManyRequests {
            throw .throttled(retryAfter: error.retryAfter ?? 1)
        } catch {
            throw .badCredentials
        }
    }

    func logout(_ headers: HTTPFields) {
        guard let token = Authenticator.sessionCookie(headers), let (_, claims) = try? authenticator.verify(token) else { return }
        authenticator.end(claims)
    }

    func accounts() -> [DashboardUser] {
        ((try? authenticator.currentUsers())?.entries ?? [:]).map { DashboardUser(name: $0.key, role: $0.value.role) }
    }

    func issueToken(for user: DashboardUser, ttlSeconds: Int64, tokenOnly: Bool, by admin: DashboardUser) -> Result<String, IssueRefusal> {
        do {
            let token = try authenticator.issueToken(user: user.name, role: user.role, ttlSeconds: ttlSeconds, tokenOnly: tokenOnly,
                                                     note: "admin page, by \(admin.name)")
            // Who issued what, never the token: the log must not hold a credential.
            authenticator.logger.notice("dashboard: \(admin.name) issued a \(user.role.rawValue) token for \(user.name), \(ttlSeconds / 86400) days")
            return .success(token)
        } catch let error as CouchError where error.status == .badRequest {
            return .failure(IssueRefusal(error.reason))
        } catch {
            return .failure(IssueRefusal("The gateway could not record the token, so none was issued."))
        }
    }

    func credentials() -> [IssuedCredential] {
        authenticator.ledger.entries().map {
            IssuedCredential(id: $0.id, user: $0.user, role: $0.role, note: $0.note, issuedAt: $0.issuedAt, expiresAt: $0.expiresAt,
                             revoked: $0.revokedAt != nil, superseded: $0.ended == CredentialLedger.superseded)
        }
    }

    func revoke(id: String, by admin: DashboardUser) -> Bool {
        guard let revoked = try? authenticator.ledger.revoke(matching: { $0.id == id }), !revoked.isEmpty else { return false }
        authenticator.logger.notice("dashboard: \(admin.name) revoked a credential of \(revoked[0].user) (\(revoked[0].note))")
        return true
    }
}
