import FPCore
import Foundation
import Hummingbird

/// `/_session`: name and password (form, JSON or Basic) exchanged for a
/// session, as CouchDB does it, plus a bearer `token` for fprint clients.
extension CouchHandler {
    /// Largest `POST /_session` body: it is read before anyone is known.
    static let sessionBodyLimit = 16 << 10

    func createSession(_ request: CouchRequest) async throws -> Reply {
        guard let (name, password) = try Self.sessionCredentials(request) else { throw CouchError.badCredentials }
        let user = try await authenticator.login(name: name, password: password, client: request.client)
        let (token, _) = try authenticator.openSession(for: user, ttlSeconds: config.sessionTTL, note: "/_session login")
        var headers = HTTPFields()
        headers[.setCookie] = sessionCookie(token, maxAge: config.sessionTTL)
        return .withHeaders(headers, .json(.ok, ["ok": true, "name": .string(user.name),
                                                 "roles": .array(user.roles.map { .string($0) }),
                                                 "token": .string(token)]))
    }

    /// `DELETE /_session`: the cookie is cleared and the session behind it
    /// (or behind a bearer token that `/_session` issued) ends on the server,
    /// wherever it was copied. A token issued by an admin is not a session:
    /// it lives until it expires or is revoked, and the answer says so.
    func endSession(_ request: CouchRequest) -> Reply {
        var headers = HTTPFields()
        headers[.setCookie] = sessionCookie("", maxAge: 0)
        var answer: JSONObject = ["ok": true]
        if let token = Authenticator.bearerToken(request.headers) ?? Authenticator.sessionCookie(request.headers), let (_, claims) = try? authenticator.verify(token) {
            if claims.isSession {
                authenticator.end(claims)
                answer["ended"] = true
            } else {
                answer["ended"] = false
                answer["reason"] = .string("a token issued by an admin does not end at logout: it lives until it expires "
                                           + "or is revoked (fprint gateway token --revoke \(claims.id ?? ""))")
            }
        } else {
            answer["ended"] = false
            answer["reason"] = "no live session was sent: there is nothing to end"
        }
        return .withHeaders(headers, .json(.ok, .object(answer)))
    }

    func sessionInfo(_ request: CouchRequest, _ user: GatewayUser) throws -> Reply {
        guard request.method == .get else { throw CouchError.methodNotAllowed }
        return .json(.ok, ["ok": true, "userCtx": ["name": .string(user.name), "roles": .array(user.roles.map { .string($0) })],
                           "info": ["authentication_handlers": ["cookie", "default"],
                                    "authenticated": .string(request.authenticatedBy)]])
    }

    /// The cookie as CouchDB sets it, plus SameSite=Strict (no other site's
    /// page sends it) and Secure when clients reach the gateway over https.
    func sessionCookie(_ value: String, maxAge: Int64) -> String {
        Self.sessionCookie(value, maxAge: maxAge, secure: config.servedOverHTTPS)
    }

    static func sessionCookie(_ value: String, maxAge: Int64, secure: Bool) -> String {
        "\(Authenticator.cookieName)=\(value); Version=1; Max-Age=\(maxAge); Path=/; HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// Basic header first (fprint's `login`), then a form body (CouchDB's
    /// replicator), then a JSON body (PouchDB, curl).
    static func sessionCredentials(_ request: CouchRequest) throws -> (String, String)? {
        if let header = request.headers[.authorization], header.hasPrefix("Basic ") {
            return Authenticator.basicCredentials(header)
        }
        guard !request.body.isEmpty else { return nil }
        let type = request.headers[.contentType]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let form = FormBody.parse(String(decoding: request.body, as: UTF8.self))
            guard let name = form["name"], let password = form["password"] else { return nil }
            return (name, password)
        }
        let body = try request.json()
        guard let name = body["name"]?.stringValue, let password = body["password"]?.stringValue else { return nil }
        return (name, password)
    }
}

/// `application/x-www-form-urlencoded` (also a URL's query): `+` is a space.
enum FormBody {
    static func parse(_ text: some StringProtocol) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[decode(Substring(parts[0]))] = parts.count > 1 ? decode(Substring(parts[1])) : ""
        }
        return fields
    }

    static func decode(_ s: Substring) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
