import FPCore
import Foundation
import Hummingbird
import Logging

/// Establishes who a request acts for from its headers alone, before any
/// body is read: a bearer token, an `AuthSession` cookie (CouchDB's session
/// cookie; fprint puts a token in it) or Basic credentials.
struct Authenticator: Sendable {
    let tokens: TokenAuthority
    let users: BasicUsers
    let throttle: GuessThrottle
    let logger: Logger
    static let cookieName = "AuthSession"

    func user(_ headers: HTTPFields, client: String) async throws -> GatewayUser {
        if let header = headers[.authorization] {
            if header.hasPrefix("Bearer ") {
                return try verify(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
            }
            if header.hasPrefix("Basic ") {
                guard let (name, password) = Self.basicCredentials(header) else { throw CouchError.badCredentials }
                return try await login(name: name, password: password, client: client)
            }
            throw CouchError.unauthorized
        }
        if let token = Self.sessionCookie(headers) { return try verify(token) }
        throw CouchError.unauthorized
    }

    func verify(_ token: String) throws -> GatewayUser {
        do {
            let claims = try tokens.verify(token)
            return GatewayUser(name: claims.subject, role: claims.role)
        } catch {
            // The reason (expired, forged) helps the user; the token is never echoed.
            throw CouchError(status: .unauthorized, error: "unauthorized", reason: error.description)
        }
    }

    /// Checks a password in its turn (see `GuessThrottle`); failures are logged
    /// with the name and address, never the password.
    func login(name: String, password: String, client: String) async throws -> GatewayUser {
        let keys = ["user:" + name, "client:" + client]
        switch await throttle.admit(keys: keys) {
        case .refuse(let retryAfter):
            logger.warning("login throttled", metadata: ["user": .string(name), "client": .string(client)])
            let seconds = Int(retryAfter.components.seconds) + 1
            throw CouchError(status: .tooManyRequests, error: "too_many_requests",
                             reason: "too many failed logins; try again in \(seconds) s", retryAfter: seconds)
        case .wait(let delay):
            if delay > .zero { try await Task.sleep(for: delay) }
        }
        guard let user = users.authenticate(name: name, password: password) else {
            let count = await throttle.failed(keys: keys)
            logger.warning("login failed", metadata: ["user": .string(name), "client": .string(client),
                                                      "failures": .stringConvertible(count)])
            throw CouchError.badCredentials
        }
        await throttle.succeeded(keys: keys)
        return user
    }

    /// `bearer`, `cookie` or `default` (Basic), for `GET /_session`.
    static func method(_ headers: HTTPFields) -> String {
        guard let header = headers[.authorization] else { return "cookie" }
        return header.hasPrefix("Bearer ") ? "bearer" : "default"
    }

    static func basicCredentials(_ header: String) -> (String, String)? {
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    static func sessionCookie(_ headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    let value = parts[1].trimmingCharacters(in: .whitespaces)
                    return value.isEmpty ? nil : value
                }
            }
        }
        return nil
    }
}
