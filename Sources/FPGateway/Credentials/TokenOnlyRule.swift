/// Whether a token issued for a user is token-only: the issuer says so for
/// a user without a users-file line, never for one with one. Where there
/// is no users file at all, every token is (nobody can be removed from one).
package enum TokenOnlyRule {
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    package static func decide(user: String, asked: Bool, listed: Bool, usersFileKnown: Bool) throws(Refusal) -> Bool {
        if listed {
            guard !asked else {
                throw Refusal(description: "\(user) is in the users file: a token of theirs ends when their line is removed, "
                              + "so it cannot be token-only")
            }
            return false
        }
        guard asked || !usersFileKnown else {
            throw Refusal(description: "\(user) is not in the users file: add them there, or issue a token-only token "
                          + "(it lives without a users-file line until it expires or is revoked)")
        }
        return true
    }
}
