import FPCore

extension GatewayRole {
    /// CouchDB's `userCtx.roles` (plain users have none, as in CouchDB).
    var couchRoles: [String] { self == .user ? [] : [rawValue] }
}

/// Who a request acts for.
public struct GatewayUser: Sendable, Equatable {
    public var name: String
    public var role: GatewayRole

    public init(name: String, role: GatewayRole = .user) {
        self.name = name
        self.role = role
    }

    public init(name: String, isAdmin: Bool) { self.init(name: name, role: isAdmin ? .admin : .user) }

    public var isAdmin: Bool { role == .admin }
    public var roles: [String] { role.couchRoles }
}
