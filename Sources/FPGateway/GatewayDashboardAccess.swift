import FPCore
import FPDashboard
import Foundation
import HTTPTypes
import Logging

/// The dashboard's logins, checked as every other request's: the same
/// users file, tokens and guess throttle, and the same `AuthSession` cookie.
struct GatewayDashboardAccess: DashboardAccess {
    let authenticator: Authenticator
    let sessionTTL: Int64

    func sessionUser(_ headers: HTTPFields) -> DashboardUser? {
        guard let token = Authenticator.sessionCookie(headers), let user = try? authenticator.verify(token) else { return nil }
        return DashboardUser(name: user.name, role: user.role)
    }

    func login(name: String, password: String, client: String) async throws(LoginRefusal) -> DashboardSession {
        if name.isEmpty {
            // A pasted token: it becomes the cookie as it is, and keeps its own expiry. A
            // forged one cannot be guessed, but it costs a failure of the client's like a password.
            let keys = ["client:" + client]
            switch await authenticator.throttle.admit(keys: keys) {
            case .refuse(let retryAfter): throw .throttled(retryAfter: Int(retryAfter.components.seconds) + 1)
            case .wait(let delay): if delay > .zero { try? await Task.sleep(for: delay) }
            }
            guard let claims = try? authenticator.tokens.verify(password) else {
                await authenticator.throttle.failed(keys: keys)
                throw .badCredentials
            }
            await authenticator.throttle.succeeded(keys: keys)
            let left = claims.expiresAt - Int64(Date().timeIntervalSince1970)
            return DashboardSession(user: DashboardUser(name: claims.subject, role: claims.role), token: password,
                                    maxAge: max(0, left))
        }
        do {
            let user = try await authenticator.login(name: name, password: password, client: client)
            let token = authenticator.tokens.issue(user: user.name, role: user.role, ttlSeconds: sessionTTL)
            return DashboardSession(user: DashboardUser(name: user.name, role: user.role), token: token, maxAge: sessionTTL)
        } catch let error as CouchError where error.status == .tooManyRequests {
            throw .throttled(retryAfter: error.retryAfter ?? 1)
        } catch {
            throw .badCredentials
        }
    }

    func accounts() -> [DashboardUser] {
        authenticator.users.entries.map { DashboardUser(name: $0.key, role: $0.value.role) }
    }

    func issueToken(for user: DashboardUser, ttlSeconds: Int64, by admin: DashboardUser) -> String {
        // Who issued what, never the token: the log must not hold a credential.
        authenticator.logger.notice("dashboard: \(admin.name) issued a \(user.role.rawValue) token for \(user.name), \(ttlSeconds / 86400) days")
        return authenticator.tokens.issue(user: user.name, role: user.role, ttlSeconds: ttlSeconds)
    }
}
