import Foundation

/// What a user may do. Viewers read (dashboards, analysts); users also
/// write documents signed with their own id; admins write any document.
public enum GatewayRole: String, Sendable, CaseIterable, Comparable {
    case viewer, user, admin

    /// viewer < user < admin: a role capped by another is the smaller.
    public static func < (a: GatewayRole, b: GatewayRole) -> Bool { a.rank < b.rank }
    private var rank: Int {
        switch self {
        case .viewer: 0
        case .user: 1
        case .admin: 2
        }
    }
}

/// The claims fprint puts in its tokens. Here, not in the gateway, because
/// the client reads its own token's user and expiry too (without the secret,
/// so without checking the signature), and the client must not depend on the server.
public struct TokenClaims: Sendable, Equatable {
    public var subject: String
    public var role: GatewayRole
    public var issuedAt: Int64
    public var expiresAt: Int64
    /// The credential's id (`jti`): what a revocation names.
    public var id: String?
    /// How it was obtained: a password login (valid only while the users
    /// file keeps that user with that password) or issued by an admin.
    public var origin: CredentialOrigin
    /// With a password login: a keyed tag of the password it was made with
    /// (never the password or its hash: the payload is readable).
    public var passwordTag: String?
    /// A dashboard session opened with a pasted token: that token's id, so
    /// revoking the token ends the session too.
    public var parent: String?
    /// Issued for a user who has no users-file line, and said so at issue
    /// time: it lives without one. Any other credential of a gateway with a
    /// users file ends when its user's line is removed.
    public var tokenOnly: Bool
    /// Times the user had been removed from the users file when it was
    /// issued (the ledger counts them): a removal ends everything issued before.
    public var removals: Int64
    /// With a password login: times the user's password had changed. A
    /// change ends the login, and setting the old password back does not revive it.
    public var passwordChanges: Int64
    public var isAdmin: Bool { role == .admin }
    /// A login's session (password, or a dashboard login with a pasted
    /// token), not a token an admin issued: logging out ends it.
    public var isSession: Bool { origin == .password || parent != nil }

    public init(subject: String, role: GatewayRole, issuedAt: Int64, expiresAt: Int64, id: String? = nil,
                origin: CredentialOrigin = .issued, passwordTag: String? = nil, parent: String? = nil,
                tokenOnly: Bool = false, removals: Int64 = 0, passwordChanges: Int64 = 0) {
        self.tokenOnly = tokenOnly
        self.removals = removals
        self.passwordChanges = passwordChanges
        self.subject = subject
        self.role = role
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.id = id
        self.origin = origin
        self.passwordTag = passwordTag
        self.parent = parent
    }

    /// Reads the claims of a token without checking its signature: only the
    /// gateway has the secret (`TokenAuthority.verify` checks it there).
    public static func unverified(_ token: String) -> TokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]) else { return nil }
        return TokenClaims(payload: data)
    }

    /// The claims of a decoded JWT payload; nil without a subject or with an unknown role or origin.
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
        var origin = CredentialOrigin.issued
        if let text = payload["src"]?.stringValue {
            guard let named = CredentialOrigin(rawValue: text) else { return nil }
            origin = named
        }
        self.init(subject: sub, role: role, issuedAt: payload["iat"]?.intValue ?? 0,
                  expiresAt: payload["exp"]?.intValue ?? 0, id: payload["jti"]?.stringValue, origin: origin,
                  passwordTag: payload["pwt"]?.stringValue, parent: payload["via"]?.stringValue,
                  tokenOnly: payload["tko"]?.boolValue ?? false, removals: payload["rmv"]?.intValue ?? 0,
                  passwordChanges: payload["pwc"]?.intValue ?? 0)
    }

    /// The JWT payload of these claims.
    public var payload: JSONValue {
        var object: JSONObject = ["sub": .string(subject), "iat": .int(issuedAt), "exp": .int(expiresAt)]
        if role != .user { object["role"] = .string(role.rawValue) }
        if let id { object["jti"] = .string(id) }
        if origin != .issued { object["src"] = .string(origin.rawValue) }
        if let passwordTag { object["pwt"] = .string(passwordTag) }
        if let parent { object["via"] = .string(parent) }
        if tokenOnly { object["tko"] = true }
        if removals != 0 { object["rmv"] = .int(removals) }
        if passwordChanges != 0 { object["pwc"] = .int(passwordChanges) }
        return .object(object)
    }
}

/// How a credential was obtained.
public enum CredentialOrigin: String, Sendable, CaseIterable {
    /// `fprint gateway token` or the dashboard's admin page.
    case issued = "tok"
    /// A name and password of the users file (`/_session`, the dashboard's login).
    case password = "pw"
}
