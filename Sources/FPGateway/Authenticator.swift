import FPCore
import FPDashboard
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Establishes who a request acts for from its headers alone, before any
/// body is read: a bearer token, an `AuthSession` cookie (CouchDB's session
/// cookie; fprint puts a token in it) or Basic credentials.
///
/// Every credential is checked against the gateway's state now, not as it
/// was when it was made: a revoked or logged-out one (the ledger) is
/// refused; one made with a password holds only while the users file keeps
/// that user with that password, and carries the user's current role; an
/// issued token's role is capped by the users file's, where it names the user.
struct Authenticator: Sendable {
    let tokens: TokenAuthority
    let users: UsersSource
    let ledger: CredentialLedger
    let throttle: GuessThrottle
    /// Successful logins per user, so that one who knows a password cannot flood the ledger.
    let logins = LoginRate()
    /// The users file's reading the ledger was last told about.
    let observed = SharedCounter()
    let logger: Logger
    /// Failed and throttled logins, logged a few per interval and then counted.
    let failureLog: RateLimitedLog
    static let cookieName = "AuthSession"

    init(tokens: TokenAuthority, users: UsersSource, ledger: CredentialLedger, throttle: GuessThrottle, logger: Logger) {
        self.tokens = tokens
        self.users = users
        self.ledger = ledger
        self.throttle = throttle
        self.logger = logger
        failureLog = RateLimitedLog(logger: logger)
    }

    /// Who a request is, and with what.
    struct Identity: Sendable {
        let user: GatewayUser
        /// `bearer`, `cookie` or `default` (Basic), as CouchDB's `/_session` names them.
        let method: String
        /// The credential's claims (not for Basic).
        let claims: TokenClaims?
    }

    func identify(_ headers: HTTPFields, client: String) async throws -> Identity {
        if let header = headers[.authorization] {
            if let token = Self.bearerToken(headers) {
                let (user, claims) = try verify(token)
                return Identity(user: user, method: "bearer", claims: claims)
            }
            if header.hasPrefix("Basic ") {
                guard let (name, password) = Self.basicCredentials(header) else { throw CouchError.badCredentials }
                return Identity(user: try await login(name: name, password: password, client: client), method: "default",
                                claims: nil)
            }
            throw CouchError.unauthorized
        }
        if let token = Self.sessionCookie(headers) {
            let (user, claims) = try verify(token)
            return Identity(user: user, method: "cookie", claims: claims)
        }
        throw CouchError.unauthorized
    }

    /// A token checked as it stands now (see the type's comment).
    func verify(_ token: String) throws -> (GatewayUser, TokenClaims) {
        let claims: TokenClaims
        do { claims = try tokens.verify(token) } catch {
            // The reason (expired, forged) helps the user; the token is never echoed.
            throw CouchError(status: .unauthorized, error: "unauthorized", reason: error.description)
        }
        let ledger = self.ledger.snapshot()
        if let problem = ledger.problem {
            logger.error("credential ledger unreadable: every credential is refused", metadata: ["problem": .string(problem)])
            throw CouchError(status: .unauthorized, error: "unauthorized", reason: "the gateway cannot read its credential ledger")
        }
        if claims.isSession { try Self.requireLive(session: claims, in: ledger) }
        if [claims.id, claims.parent].compactMap({ $0 }).contains(where: ledger.isRevoked) {
            throw Self.ended("this session or token was ended (logged out or revoked)")
        }
        let entry = try currentUsers().entries[claims.subject]
        // Read again: a new reading of the users file may just have changed the user's counts.
        let record = self.ledger.record(of: claims.subject)
        switch claims.origin {
        case .password:
            guard let entry, claims.passwordTag == tokens.passwordTag(digest: entry.digest),
                  claims.passwordChanges == record.passwordChanges, claims.removals == record.removals else {
                throw Self.ended("this login ended: the user was removed or their password changed; log in again")
            }
            return (GatewayUser(name: claims.subject, role: entry.role), claims)
        case .issued:
            // A user who had a users-file line when this was issued needs it
            // still, and not a new one since a removal; only a token issued
            // as token-only lives without one (its role capped by one, if any).
            if !claims.tokenOnly {
                guard entry != nil || !users.hasUsers, claims.removals == record.removals else {
                    throw Self.ended("this token ended: its user was removed from the users file")
                }
            }
            let role = entry.map { min(claims.role, $0.role) } ?? claims.role
            return (GatewayUser(name: claims.subject, role: role), claims)
        }
    }

    /// A session holds only while the ledger keeps it live: logged out,
    /// superseded by its user's newer ones, or forgotten, it is refused.
    private static func requireLive(session claims: TokenClaims, in ledger: CredentialLedger.Snapshot) throws {
        guard let id = claims.id, let entry = ledger.entry(id) else {
            throw ended("this session is no longer known to the gateway (it ended); log in again")
        }
        guard entry.revokedAt == nil else {
            if entry.ended == CredentialLedger.superseded {
                throw ended("this session ended: \(CredentialLedger.sessionsPerUser) newer logins of its user came after it "
                                 + "(each user keeps that many); log in again")
            }
            throw ended("this session or token was ended (logged out or revoked)")
        }
    }

    static func ended(_ reason: String) -> CouchError {
        CouchError(status: .unauthorized, error: "unauthorized", reason: reason)
    }

    /// The users file now; a file that cannot be read refuses password logins.
    /// A new reading is compared with what the ledger saw (`observe`).
    func currentUsers() throws -> BasicUsers {
        switch users.currentReading() {
        case .success(let reading):
            if observed.exchange(reading.version) != reading.version {
                observe(reading.users, version: reading.version)
            }
            return reading.users
        case .failure(let problem):
            failureLog.error("users file unreadable: password logins refused", ["problem": .string(problem.description)])
            throw CouchError(status: .serviceUnavailable, error: "service_unavailable",
                             reason: "the gateway cannot read its users file; ask its admin")
        }
    }

    /// Tells the ledger who is in the users file now, with which password.
    private func observe(_ users: BasicUsers, version: Int) {
        let tags = users.entries.mapValues { tokens.passwordTag(digest: $0.digest) }
        do { try ledger.observe(users: tags) } catch {
            // Tried again at the next check; a removed user is refused meanwhile by the file itself.
            observed.store(0)
            logger.error("could not record the users file in the credential ledger", metadata: ["problem": .string("\(error)")])
        }
    }

    /// Checks a password in its turn (see `GuessThrottle`); failures are
    /// logged with the name and address, never the password.
    func login(name: String, password: String, client: String) async throws -> GatewayUser {
        let attempt = GuessThrottle.Attempt(client: client, user: name)
        try await takeTurn(attempt)
        guard let user = try currentUsers().authenticate(name: name, password: password) else {
            let count = await throttle.failed(attempt)
            failureLog.warning("login failed", ["user": .string(name), "client": .string(client),
                                                "failures": .stringConvertible(count)])
            throw CouchError.badCredentials
        }
        await throttle.succeeded(attempt)
        return user
    }

    /// Waits for an attempt's turn, or refuses it (429).
    func takeTurn(_ attempt: GuessThrottle.Attempt) async throws {
        switch await throttle.admit(attempt) {
        case .refuse(let retryAfter):
            failureLog.warning("login throttled", ["user": .string(attempt.user ?? "(token)"), "client": .string(attempt.client)])
            let seconds = Int(retryAfter.components.seconds) + 1
            throw CouchError(status: .tooManyRequests, error: "too_many_requests",
                             reason: "too many failed logins; try again in \(seconds) s", retryAfter: seconds)
        case .wait(let delay):
            if delay > .zero { try await Task.sleep(for: delay) }
        }
    }

    // MARK: - Sessions

    /// A login's session token (the `AuthSession` cookie and `/_session`'s
    /// `token`): valid while the users file keeps this user with this
    /// password, until it expires, is ended, or is one of more than
    /// `sessionsPerUser` of its user; recorded in the ledger. Logins of one
    /// user are limited (`LoginRate`): 429 past it.
    func openSession(for user: GatewayUser, ttlSeconds: Int64, note: String) throws -> (token: String, claims: TokenClaims) {
        guard let entry = try currentUsers().entries[user.name] else { throw CouchError.badCredentials }
        if let wait = logins.take(user.name) {
            failureLog.warning("logins limited", ["user": .string(user.name)])
            throw CouchError(status: .tooManyRequests, error: "too_many_requests",
                             reason: "too many logins of \(user.name); try again in \(wait) s", retryAfter: wait)
        }
        let issued = tokens.issueWithClaims(user: user.name, role: user.role, ttlSeconds: ttlSeconds, origin: .password,
                                            passwordTag: tokens.passwordTag(digest: entry.digest),
                                            standing: ledger.record(of: user.name))
        try record(issued.claims, note: note)
        return issued
    }

    /// A dashboard session opened with a pasted token: its own id, the
    /// token's role, ending when the token does (or is revoked) at the latest.
    func openSession(fromToken token: String, ttlSeconds: Int64, note: String) throws -> (token: String, claims: TokenClaims) {
        let (user, parent) = try verify(token)
        let left = max(0, min(ttlSeconds, parent.expiresAt - Int64(Date().timeIntervalSince1970)))
        let issued = tokens.issueWithClaims(user: user.name, role: user.role, ttlSeconds: left, origin: .issued,
                                            parent: parent.id, tokenOnly: parent.tokenOnly,
                                            standing: .init(removals: parent.removals))
        try record(issued.claims, note: note)
        return issued
    }

    /// A token issued by an admin (the dashboard's admin page). Whether it
    /// is token-only follows the users file (`TokenOnlyRule`).
    func issueToken(user: String, role: GatewayRole, ttlSeconds: Int64, tokenOnly asked: Bool, note: String) throws -> String {
        let listed = try currentUsers().entries[user] != nil
        let tokenOnly: Bool
        do { tokenOnly = try TokenOnlyRule.decide(user: user, asked: asked, listed: listed, usersFileKnown: users.hasUsers) } catch {
            throw CouchError(status: .badRequest, error: "bad_request", reason: error.description)
        }
        let issued = tokens.issueWithClaims(user: user, role: role, ttlSeconds: ttlSeconds, tokenOnly: tokenOnly,
                                            standing: ledger.record(of: user))
        try record(issued.claims, note: note)
        return issued.token
    }

    /// Logout: the credential is revoked here, whatever copies exist.
    func end(_ claims: TokenClaims) {
        guard let id = claims.id else { return }
        do { try ledger.revoke(id: id, user: claims.subject, expiresAt: claims.expiresAt) } catch {
            logger.error("could not record a logout", metadata: ["problem": .string("\(error)")])
        }
    }

    private func record(_ claims: TokenClaims, note: String) throws {
        do {
            let superseded = try ledger.record(CredentialLedger.Entry(claims, note: note))
            if !superseded.isEmpty {
                logger.notice("\(claims.subject): \(superseded.count) older session(s) ended (a user keeps \(CredentialLedger.sessionsPerUser))")
            }
        } catch {
            // A credential that could not be recorded could not be listed or revoked: none is handed out.
            logger.error("could not record a credential", metadata: ["problem": .string("\(error)")])
            throw CouchError(status: .internalServerError, error: "internal_server_error",
                             reason: "the gateway could not record the credential")
        }
    }

    // MARK: - Headers

    /// The token of an `Authorization: Bearer` header.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let header = headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
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

/// The gateway's check of a bearer token for its other ports (network
/// probes): the same ledger and users file as every request, so a revoked
/// token or a removed user's login is refused there too.
package struct TokenCheck: Sendable {
    let authenticator: Authenticator

    package init(config: GatewayConfig) throws {
        let users = try config.usersFile.map { try UsersSource(path: $0) } ?? UsersSource(fixed: config.users)
        authenticator = Authenticator(tokens: config.tokens, users: users, ledger: CredentialLedger(path: config.ledgerPath),
                                      throttle: GuessThrottle(), logger: ServerLogHandler.logger(label: "fprint.gateway.tokens"))
    }

    /// The user a token is valid for now; throws with a reason to show.
    package func user(_ token: String) throws -> String {
        do { return try authenticator.verify(token).0.name } catch let error as CouchError {
            throw TokenCheckRefusal(description: error.reason)
        }
    }
}

package struct TokenCheckRefusal: Error, CustomStringConvertible {
    package let description: String
}
