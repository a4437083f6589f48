import FPConfig
import FPCore
import FPNet
import FPSync
import Foundation

/// The credentials one gateway database gets, and where they came from.
/// First found wins: `--token`, `user:password@` in the URL, `FPRINT_TOKEN`,
/// then the credential `fprint login` stored for this database URL (else the
/// one an older fprint stored for every gateway).
struct GatewayAuth {
    /// The database URL without user info: what is shown, hashed and sent.
    var url: URL
    var credentials: SyncCredentials
    /// Where the credentials came from, for `status` and messages.
    var origin: String
    /// A bearer token, when that is what they are (its claims name the user).
    var token: String?

    static func resolve(_ given: URL, explicitToken: String?, workspace: Workspace, transport: any HTTPTransport) throws
        -> GatewayAuth
    {
        let (url, inURL) = URLCredentials.split(given)
        if let explicitToken, !explicitToken.isEmpty {
            return GatewayAuth(url: url, credentials: .bearer(explicitToken), origin: "--token", token: explicitToken)
        }
        if let inURL {
            return GatewayAuth(url: url, credentials: .basic(user: inURL.user, password: inURL.password),
                               origin: "user:password in the URL")
        }
        if let env = workspace.environment["FPRINT_TOKEN"], !env.isEmpty {
            return GatewayAuth(url: url, credentials: .bearer(env), origin: "FPRINT_TOKEN", token: env)
        }
        let file = CredentialFile(paths: workspace.paths)
        guard let (stored, key) = try file.credential(for: url) else {
            return GatewayAuth(url: url, credentials: .none, origin: "none")
        }
        let origin = key == CredentialFile.anyGateway ? "the credentials file (saved for any gateway)" : "the credentials file"
        switch stored {
        case .bearer(let token):
            return GatewayAuth(url: url, credentials: .bearer(token), origin: origin, token: token)
        case .session:
            return GatewayAuth(url: url, credentials: .session(session(stored, key: key, url: url, file: file,
                                                                       transport: transport)!),
                               origin: origin)
        }
    }

    /// A stored CouchDB session as a live one: each renewed cookie is written
    /// back to the credentials file, so the next run starts with it.
    static func session(_ stored: StoredCredential, key: String, url: URL, file: CredentialFile,
                        transport: any HTTPTransport) -> CouchSession? {
        guard case .session(let name, let password, let cookie, let expiresAtMs, let lifetime) = stored else { return nil }
        let current = CouchSession.Cookie(value: cookie, expiresAt: Date(timeIntervalSince1970: Double(expiresAtMs) / 1000),
                                          lifetime: lifetime)
        return CouchSession(sessionURL: sessionURL(of: url), name: name, password: password, cookie: current,
                            transport: transport, onRenew: { fresh in
            let renewed = StoredCredential.session(
                name: name, password: password, cookie: fresh.value,
                expiresAtMs: Int64(fresh.expiresAt.timeIntervalSince1970 * 1000), lifetime: fresh.lifetime)
            // Not fatal: this run holds the cookie; the next one logs in again.
            do { try file.save(renewed, key: key) } catch {
                Terminal.err("warning: could not store the renewed session cookie: \(error)")
            }
        })
    }

    /// `scheme://host:port/_session` for a database URL.
    static func sessionURL(of database: URL) -> URL { rootURL(of: database, path: "/_session") }

    /// `scheme://host:port` + `path` for a database URL, without user info or query.
    static func rootURL(of database: URL, path: String) -> URL {
        var parts = URLComponents(url: database, resolvingAgainstBaseURL: false)!
        parts.path = path
        parts.query = nil
        parts.user = nil
        parts.password = nil
        return parts.url!
    }

    /// The user documents are signed with: the token's `sub`, else the name
    /// `GET /_session` reports for these credentials; nil when neither
    /// names one (then nothing unsigned is pushed).
    func userID(transport: any HTTPTransport) async -> String? {
        if let token, let claims = TokenClaims.unverified(token) { return claims.subject }
        let session = RemoteDatabase(url: Self.sessionURL(of: url), transport: transport, credentials: credentials,
                                     retry: .none)
        func named() async -> String? {
            guard let answer = try? await session.json(.get, []), let name = answer["userCtx"]?["name"]?.stringValue,
                  !name.isEmpty else { return nil }
            return name
        }
        if let name = await named() { return name }
        // CouchDB answers a cookie it no longer takes (the user's password
        // was set again, its secret changed) as anonymous, 200 and no name,
        // not 401: a stored session logs in again once and asks again.
        guard case .session(let couch) = credentials, (try? await couch.renew(refused: nil)) != nil else { return nil }
        return await named()
    }
}

/// The headers config files fetched from a URL get: `user:password@` of the
/// app config's URL for its own origin, else the credential stored for a
/// gateway database on that origin (the gateway serves `/config/`).
struct ConfigAuthorizer: Sendable {
    let paths: FPPaths
    let transport: any BlockingHTTPTransport

    func headers(for url: URL) -> HTTPHeaders {
        var headers = HTTPHeaders()
        let file = CredentialFile(paths: paths)
        guard let (stored, key) = try? file.credential(sameOriginAs: url), let database = URL(string: key) else {
            return headers
        }
        let credentials: SyncCredentials
        switch stored {
        case .bearer(let token): credentials = .bearer(token)
        case .session:
            guard let session = GatewayAuth.session(stored, key: key, url: database, file: file, transport: transport)
            else { return headers }
            credentials = .session(session)
        }
        // A session close to expiry logs in again first; if that fails the
        // server's 401 names the problem.
        try? credentials.applyBlocking(to: &headers)
        return headers
    }
}
