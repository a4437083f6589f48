import Crypto
import FPCore
import FPHex
import Foundation

/// Why a token was refused. Descriptions never contain the token.
package enum TokenError: Error, Equatable, CustomStringConvertible {
    case malformed
    case badSignature
    case expired
    case unsupported(String)

    package var description: String {
        switch self {
        case .malformed: "the token is not a well-formed JWT"
        case .badSignature: "the token's signature does not match this gateway's secret"
        case .expired: "the token has expired"
        case .unsupported(let what): "unsupported token: \(what)"
        }
    }
}

/// HS256 JSON Web Tokens (RFC 7519) signed with the gateway's secret.
/// Hand-rolled over swift-crypto's HMAC: fprint needs one algorithm and
/// three claims, which is less code than configuring a JWT library.
package struct TokenAuthority: Sendable {
    let key: SymmetricKey

    package init(secret: Data) {
        key = SymmetricKey(data: secret)
    }

    /// Makes a new random secret (32 bytes, as hex text for the secret file).
    package static func newSecret() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Hex.string($0) }
    }

    /// A new token for `user`, with an id of its own (what a revocation names).
    package func issue(user: String, role: GatewayRole = .user, ttlSeconds: Int64, now: Date = Date(),
                       origin: CredentialOrigin = .issued, passwordTag: String? = nil, parent: String? = nil) -> String {
        issueWithClaims(user: user, role: role, ttlSeconds: ttlSeconds, now: now, origin: origin, passwordTag: passwordTag,
                        parent: parent).token
    }

    package func issue(user: String, admin: Bool, ttlSeconds: Int64, now: Date = Date()) -> String {
        issue(user: user, role: admin ? .admin : .user, ttlSeconds: ttlSeconds, now: now)
    }

    /// `issue`, with the claims it signed (for the ledger).
    package func issueWithClaims(user: String, role: GatewayRole, ttlSeconds: Int64, now: Date = Date(),
                                 origin: CredentialOrigin = .issued, passwordTag: String? = nil,
                                 parent: String? = nil, tokenOnly: Bool = false,
                                 standing: CredentialLedger.UserRecord = .init()) -> (token: String, claims: TokenClaims) {
        let iat = Int64(now.timeIntervalSince1970)
        let claims = TokenClaims(subject: user, role: role, issuedAt: iat, expiresAt: iat + ttlSeconds, id: Self.newID(),
                                 origin: origin, passwordTag: passwordTag, parent: parent, tokenOnly: tokenOnly,
                                 removals: standing.removals, passwordChanges: origin == .password ? standing.passwordChanges : 0)
        return (sign(claims.payload), claims)
    }

    func sign(_ payload: JSONValue) -> String {
        let header = Base64URL.encode(CanonicalJSON.data(["alg": "HS256", "typ": "JWT"]))
        let body = Base64URL.encode(CanonicalJSON.data(payload))
        let signingInput = header + "." + body
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Base64URL.encode(Data(mac))
    }

    /// 128 random bits: a credential id nobody can guess or collide with.
    static func newID() -> String {
        Base64URL.encode(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    }

    /// A tag of a users-file password (its digest), keyed with the secret:
    /// a login credential carries it, and a changed password no longer
    /// matches. Without the secret it tells nothing about the password.
    package func passwordTag(digest: Data) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("password:".utf8) + digest, using: key)
        return Base64URL.encode(Data(mac).prefix(12))
    }

    package func verify(_ token: String, now: Date = Date()) throws(TokenError) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]),
              let payloadData = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard let header = try? CanonicalJSON.parse(headerData) else { throw .malformed }
        // Only HS256: accepting `alg` from the token ("none", RS256 with the
        // secret as a public key) is the classic JWT forgery.
        guard header["alg"]?.stringValue == "HS256" else { throw .unsupported("only HS256 tokens are accepted") }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let claims = TokenClaims(payload: payloadData), claims.expiresAt > 0 else { throw .malformed }
        guard Int64(now.timeIntervalSince1970) < claims.expiresAt else { throw .expired }
        // Without an id it cannot be revoked: such tokens (older gateways') are no longer taken.
        guard claims.id != nil else { throw .unsupported("it was issued by an older fprint gateway and cannot be revoked; ask for a new one") }
        return claims
    }
}
