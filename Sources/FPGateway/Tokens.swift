import Crypto
import FPCore
import Foundation

/// Who a request acts for.
public struct GatewayUser: Sendable, Equatable {
    public var name: String
    public var isAdmin: Bool
    public init(name: String, isAdmin: Bool) {
        self.name = name
        self.isAdmin = isAdmin
    }
    public var roles: [String] { isAdmin ? ["admin"] : [] }
}

/// Why a token was refused. Descriptions never contain the token.
public enum TokenError: Error, Equatable, CustomStringConvertible {
    case malformed
    case badSignature
    case expired
    case unsupported(String)

    public var description: String {
        switch self {
        case .malformed: "the token is not a well-formed JWT"
        case .badSignature: "the token's signature does not match this gateway's secret"
        case .expired: "the token has expired"
        case .unsupported(let what): "unsupported token: \(what)"
        }
    }
}

/// The claims fprint puts in its tokens.
public struct TokenClaims: Sendable, Equatable {
    public var subject: String
    public var isAdmin: Bool
    public var issuedAt: Int64
    public var expiresAt: Int64
}

/// HS256 JSON Web Tokens (RFC 7519) signed with the gateway's secret.
/// Hand-rolled over swift-crypto's HMAC: fprint needs one algorithm and
/// three claims, which is less code than configuring a JWT library.
public struct TokenAuthority: Sendable {
    let key: SymmetricKey

    public init(secret: Data) {
        key = SymmetricKey(data: secret)
    }

    /// Makes a new random secret (32 bytes, as hex text for the secret file).
    public static func newSecret() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }.map { String(format: "%02x", $0) }.joined()
    }

    public func issue(user: String, admin: Bool, ttlSeconds: Int64, now: Date = Date()) -> String {
        let iat = Int64(now.timeIntervalSince1970)
        var payload: JSONValue = ["sub": .string(user), "iat": .int(iat), "exp": .int(iat + ttlSeconds)]
        if admin { payload["role"] = "admin" }
        let header = Self.base64URL(CanonicalJSON.data(["alg": "HS256", "typ": "JWT"]))
        let body = Self.base64URL(CanonicalJSON.data(payload))
        let signingInput = header + "." + body
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: key)
        return signingInput + "." + Self.base64URL(Data(mac))
    }

    public func verify(_ token: String, now: Date = Date()) throws(TokenError) -> TokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.decodeBase64URL(parts[0]),
              let payloadData = Self.decodeBase64URL(parts[1]), let signature = Self.decodeBase64URL(parts[2])
        else { throw .malformed }
        guard let header = try? CanonicalJSON.parse(headerData) else { throw .malformed }
        // Only HS256: accepting `alg` from the token ("none", RS256 with the
        // secret as a public key) is the classic JWT forgery.
        guard header["alg"]?.stringValue == "HS256" else { throw .unsupported("only HS256 tokens are accepted") }
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key) else {
            throw .badSignature
        }
        guard let payload = try? CanonicalJSON.parse(payloadData), let sub = payload["sub"]?.stringValue,
              !sub.isEmpty, let exp = payload["exp"]?.intValue
        else { throw .malformed }
        guard Int64(now.timeIntervalSince1970) < exp else { throw .expired }
        return TokenClaims(subject: sub, isAdmin: payload["role"]?.stringValue == "admin",
                           issuedAt: payload["iat"]?.intValue ?? 0, expiresAt: exp)
    }

    /// Reads the claims without checking the signature: the client shows its
    /// token's user and expiry (it does not have the secret).
    public static func unverifiedClaims(_ token: String) -> TokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = decodeBase64URL(parts[1]),
              let payload = try? CanonicalJSON.parse(data), let sub = payload["sub"]?.stringValue else { return nil }
        return TokenClaims(subject: sub, isAdmin: payload["role"]?.stringValue == "admin",
                           issuedAt: payload["iat"]?.intValue ?? 0, expiresAt: payload["exp"]?.intValue ?? 0)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }
}

/// Optional Basic-auth users (`name:password[:admin]` lines in a 0600 file).
/// Passwords are compared as SHA-256 digests in constant time.
public struct BasicUsers: Sendable {
    struct Entry: Sendable {
        var digest: Data
        var admin: Bool
    }
    var entries: [String: Entry]

    public init() { entries = [:] }

    public init(fileText: String) throws {
        entries = [:]
        for (number, line) in fileText.split(whereSeparator: \.isNewline).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let parts = trimmed.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw GatewaySetupError("users file line \(number + 1): expected name:password[:admin]")
            }
            let admin = parts.count == 3 && parts[2] == "admin"
            entries[String(parts[0])] = Entry(digest: Data(SHA256.hash(data: Data(parts[1].utf8))), admin: admin)
        }
    }

    public func authenticate(name: String, password: String) -> GatewayUser? {
        guard let entry = entries[name] else { return nil }
        let digest = Data(SHA256.hash(data: Data(password.utf8)))
        // Constant-time comparison of equal-length digests.
        var difference: UInt8 = 0
        for (a, b) in zip(digest, entry.digest) { difference |= a ^ b }
        return difference == 0 ? GatewayUser(name: name, isAdmin: entry.admin) : nil
    }
}

public struct GatewaySetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
