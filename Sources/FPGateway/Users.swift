import Crypto
import FPCore
import Foundation

/// Basic-auth users (`name:password[:role]` lines in a 0600 file; role is
/// viewer, user or admin, default user). Passwords are compared as SHA-256
/// digests in constant time.
package struct BasicUsers: Sendable {
    struct Entry: Sendable {
        var digest: Data
        var role: GatewayRole
    }
    var entries: [String: Entry]

    package init() { entries = [:] }

    package init(fileText: String) throws {
        entries = [:]
        for (number, line) in fileText.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw GatewaySetupError("users file line \(number + 1): expected name:password[:viewer|user|admin]")
            }
            var role = GatewayRole.user
            if parts.count == 3 {
                guard let named = GatewayRole(rawValue: String(parts[2])) else {
                    throw GatewaySetupError("users file line \(number + 1): unknown role '\(parts[2])' (viewer, user or admin)")
                }
                role = named
            }
            entries[String(parts[0])] = Entry(digest: Data(SHA256.hash(data: Data(parts[1].utf8))), role: role)
        }
    }

    package var isEmpty: Bool { entries.isEmpty }

    package var count: Int { entries.count }

    package func contains(_ name: String) -> Bool { entries[name] != nil }

    package func authenticate(name: String, password: String) -> GatewayUser? {
        // An unknown name costs the same digest as a known one.
        let entry = entries[name]
        let digest = Data(SHA256.hash(data: Data(password.utf8)))
        var difference: UInt8 = entry == nil ? 1 : 0
        for (a, b) in zip(digest, entry?.digest ?? Data(count: digest.count)) { difference |= a ^ b }
        guard difference == 0, let entry else { return nil }
        return GatewayUser(name: name, role: entry.role)
    }
}

package struct GatewaySetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
