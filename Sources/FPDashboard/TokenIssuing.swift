import FPCore
import Foundation
import Hummingbird

/// The admin page's "Issue a token" and "Revoke" forms: what `fprint
/// gateway token` does on the gateway's host, for an admin who only has a
/// browser. A token is shown once, in the answer to the POST (never in a
/// URL, a log or a cache); the gateway keeps its id, user and expiry (the
/// ledger), never the token itself.
extension Dashboard {
    static let maxTokenDays = 3650
    /// Login sessions a user keeps (the gateway's credential ledger holds them to it).
    package static let sessionsPerUser = 20

    /// The form's user, role and lifetime, or what is wrong with them.
    static func tokenRequest(_ form: [String: String]) -> Result<(user: DashboardUser, days: Int), TokenFormError> {
        let name = form["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !name.isEmpty, name != "-", name.count <= 128, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return .failure(TokenFormError("Give a user name (1–128 characters, no control characters).")) }
        guard let role = GatewayRole(rawValue: form["role"] ?? "") else {
            return .failure(TokenFormError("The role must be viewer, user or admin."))
        }
        guard let days = Int(form["days"] ?? ""), (1...maxTokenDays).contains(days) else {
            return .failure(TokenFormError("The lifetime must be 1 to \(maxTokenDays) days."))
        }
        return .success((DashboardUser(name: name, role: role), days))
    }

    /// The admin page again, with the token or why none was issued; throws
    /// only when the survey cannot be read for the page.
    func issueToken(_ request: inout Request, by admin: DashboardUser, pages: Pages) async throws -> Response {
        guard let access else { return pages.forbidden("Local mode has no token secret: run `fprint gateway token` on the gateway's host.") }
        guard let form = await Form.read(&request, limit: Self.formLimit) else {
            return try await pages.admin(status: .contentTooLarge, ["issueError": "The form is too large."])
        }
        switch Self.tokenRequest(form) {
        case .failure(let error):
            return try await pages.admin(status: .badRequest, ["issueError": error.text])
        case .success(let (user, days)):
            let tokenOnly = form["tokenOnly"] == "on"
            switch access.issueToken(for: user, ttlSeconds: Int64(days) * 86400, tokenOnly: tokenOnly, by: admin) {
            case .failure(let refusal):
                return try await pages.admin(status: .badRequest, ["issueError": refusal.text])
            case .success(let token):
                let issued: [String: Any] = ["token": token, "name": user.name, "role": user.role.rawValue, "days": days,
                                             "tokenOnly": tokenOnly]
                return try await pages.admin(["issued": issued])
            }
        }
    }
}

extension Dashboard {
    /// Revokes the credential the form names; the admin page again, saying so.
    func revokeCredential(_ request: inout Request, by admin: DashboardUser, pages: Pages) async throws -> Response {
        guard let access else { return pages.forbidden("Local mode has no tokens to revoke.") }
        guard let form = await Form.read(&request, limit: Self.formLimit) else {
            return try await pages.admin(status: .contentTooLarge, ["revokeError": "The form is too large."])
        }
        let id = form["id"] ?? ""
        guard !id.isEmpty, access.revoke(id: id, by: admin) else {
            return try await pages.admin(status: .notFound, ["revokeError": "No live token or session has that id."])
        }
        return try await pages.admin(["revokedID": id])
    }
}

/// A token form that cannot be used; the text is safe to show.
struct TokenFormError: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
