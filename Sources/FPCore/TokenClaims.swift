import Foundation

/// What a user may do. Viewers read (dashboards, analysts); users also
/// write documents signed with their own id; admins write any document.
public enum GatewayRole: String, Sendable, CaseIterable {
    case viewer, user, admin
}

/// The claims fprint puts in its tokens. Here, not in the gateway, because
/// the client reads its own token's user and expiry too (without the secret,
/// so without checking the signature), and the client must not depend on the server.
public struct TokenClaims: Sendable, Equatable {
    public var subject: String
    public var role: GatewayRole
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var isAdmin: Bool { role == .admin }

    public init(subject: String, role: GatewayRole, issuedAt: Int64, expiresAt: Int64) {
        self.subject = subject
        self.role = role
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }

    /// Reads the claims of a token without checking its signature: only the
    /// gateway has the secret (`TokenAuthority.verify` checks it there).
    public static func unverified(_ token: String) -> TokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]) else { return nil }
        return TokenClaims(payload: data)
    }

    /// The claims of a decoded JWT payload; nil without a subject or with an unknown role.
    public init?(payload: Data) {
        guard let payload = try? CanonicalJSON.parse(payload), let sub = payload["sub"]?.stringValue, !sub.isEmpty
        else { return nil }
        let role: GatewayRole
        switch payload["role"]?.stringValue {
        case nil: role = .user
        case let text?:
            guard let named = GatewayRole(rawValue: text) else { return nil }
            role = named
        }
        self.init(subject: sub, role: role, issuedAt: payload["iat"]?.intValue ?? 0,
                  expiresAt: payload["exp"]?.intValue ?? 0)
    }
}
