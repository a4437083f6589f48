import FPCore

extension GatewayRole {
    /// CouchDB's `userCtx.roles` (plain users have none, as in CouchDB).
    var couchRoles: [String] { self == .user ? [] : [rawValue] }
}

/// Who a request acts for.
package struct GatewayUser: Sendable, Equatable {
    package var name: String
    package var role: GatewayRole

    package init(name: String, role: GatewayRole = .user) {
        self.name = name
        self.role = role
    }

    package init(name: String, isAdmin: Bool) { self.init(name: name, role: isAdmin ? .admin : .user) }

    package var isAdmin: Bool { role == .admin }
    package var roles: [String] { role.couchRoles }
}
