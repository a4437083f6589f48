import ArgumentParser
import FPCore
import FPGateway
import Foundation

/// `fprint gateway token`: issue, list and revoke the gateway's tokens on its host.
struct GatewayToken: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Issue a bearer token signed with this gateway's secret (printed on stdout); list or revoke tokens and sessions.",
        discussion: """
            A token of a user in the gateway's users file ends when their line is removed (and is capped by their role there). A user without a line gets a token only with --token-only: it then lives until it expires or is revoked. Which users are in the file is known from --users, else from what the gateway last read (kept in its ledger); where the gateway has no users file, every token is token-only.

            Hand a token to its user through a private channel; they pass it to `fprint sync` with --token, FPRINT_TOKEN or `fprint login --token`. The gateway records each token's id, user, role and expiry (never the token) in its credential ledger beside the secret file (`<secret>.credentials.json`, 0600), with every login session; --list shows them, --revoke ends one at once, wherever it was copied (a running gateway sees it on the next request).

            Examples:
              fprint gateway token --user alice --ttl 30d
              fprint gateway token --user dashboard --role viewer --token-only
              fprint gateway token --list
              fprint gateway token --revoke 3kq0Xw9aVb2_example
              fprint gateway token --revoke-user alice
            """)

    @Option(help: "User id (the token's sub; documents are signed with it).") var user: String?
    @Option(help: "Role: viewer (reads only), user or admin.") var role = "user"
    @Option(help: "Lifetime: seconds or 30m / 12h / 30d (at most 3650d).") var ttl = "30d"
    @Flag(help: "List the tokens and sessions that have not expired.") var list = false
    @Option(help: ArgumentHelp("Revoke the token or session with this id (from --list).", valueName: "id")) var revoke: String?
    @Option(help: ArgumentHelp("Revoke every token and session of this user.", valueName: "user")) var revokeUser: String?
    @Flag(help: "Issue for a user who has no line in the users file (the token lives without one).") var tokenOnly = false
    @Option(help: ArgumentHelp("The gateway's users file, to tell whether --user is in it (default: as the gateway last read it).",
                               valueName: "path")) var users: String?
    @Flag(help: "With --list: one JSON object per line.") var json = false
    @OptionGroup var files: GatewayFiles

    func validate() throws {
        let actions = [user != nil, list, revoke != nil, revokeUser != nil].filter { $0 }.count
        guard actions == 1 else { throw ValidationError("give one of --user (issue), --list, --revoke ID or --revoke-user NAME") }
        if let user, user.isEmpty || user == "-" { throw ValidationError("--user must be a real user id") }
        if GatewayRole(rawValue: role) == nil { throw ValidationError("--role must be viewer, user or admin") }
        guard let seconds = Self.seconds(ttl), seconds <= 3650 * 86400 else {
            throw ValidationError("--ttl: use seconds or 30m / 12h / 30d, at most 3650d")
        }
        _ = seconds
    }

    static func seconds(_ text: String) -> Int64? {
        if let n = Int64(text), n > 0 { return n }
        guard let unit = text.last, let n = Int64(text.dropLast()), n > 0 else { return nil }
        switch unit {
        case "s": return n
        case "m": return n * 60
        case "h": return n * 3600
        case "d": return n * 86400
        default: return nil
        }
    }

    func perform() async throws {
        let paths = Workspace().paths
        let secret = try files.loadSecret(paths)
        let ledger = CredentialLedger(path: files.ledgerPath(paths))
        if let problem = ledger.unreadable() { throw CommandFailure("\(problem)", .dataError) }
        if let user {
            let authority = TokenAuthority(secret: secret)
            let tokenOnly = try decideTokenOnly(user, ledger: ledger)
            let (token, claims) = authority.issueWithClaims(
                user: user, role: GatewayRole(rawValue: role) ?? .user, ttlSeconds: Self.seconds(ttl)!, tokenOnly: tokenOnly,
                standing: ledger.record(of: user))
            do { try ledger.record(CredentialLedger.Entry(claims, note: "fprint gateway token")) } catch {
                throw CommandFailure("\(error): no token was issued (one that is not recorded could not be revoked)", .ioError)
            }
            Terminal.out(token)
            Terminal.err("issued \(tokenOnly ? "a token-only" : "a") token \(claims.id ?? "") for \(user) (\(role)), until \(ISOTime.string(Date(timeIntervalSince1970: Double(claims.expiresAt))))")
        } else if list {
            let entries = ledger.entries()
            if json {
                for e in entries { Terminal.out(CanonicalJSON.string(Self.json(e))) }
            } else if entries.isEmpty {
                Terminal.err("no tokens or sessions that have not expired")
            } else {
                let rows = entries.map { e in
                    [e.id, e.user, e.role.rawValue, e.note, Self.day(e.issuedAt), Self.day(e.expiresAt),
                     e.revokedAt == nil ? "" : e.ended == nil ? "revoked" : "ended: newer logins"]
                }
                for line in Terminal.table(["ID", "USER", "ROLE", "WHAT", "ISSUED", "EXPIRES", ""], rows) { Terminal.out(line) }
            }
        } else {
            let revoked: [CredentialLedger.Entry]
            do {
                if let id = revoke {
                    revoked = try ledger.revoke { $0.id == id }
                    if revoked.isEmpty { throw CommandFailure("no live token or session has the id \(id) (`fprint gateway token --list`)", .notFound) }
                } else {
                    let name = revokeUser ?? ""
                    revoked = try ledger.revoke { $0.user == name }
                    if revoked.isEmpty { throw CommandFailure("\(name) has no live token or session", .notFound) }
                }
            } catch let error as CredentialLedger.LedgerError {
                throw CommandFailure(error.description, .ioError)
            }
            for e in revoked { Terminal.err("revoked \(e.id): \(e.user) (\(e.role.rawValue)), \(e.note)") }
        }
    }

    /// Whether the token is token-only (`TokenOnlyRule`), by --users or what the gateway last read.
    func decideTokenOnly(_ user: String, ledger: CredentialLedger) throws -> Bool {
        let listed: Bool, known: Bool
        if let users {
            let parsed = try GatewayServe.readUsers(users)
            (listed, known) = (parsed.contains(user), !parsed.isEmpty)
        } else {
            let seen = ledger.snapshot()
            (listed, known) = (seen.record(of: user).tag != nil, seen.knowsUsersFile)
        }
        do { return try TokenOnlyRule.decide(user: user, asked: tokenOnly, listed: listed, usersFileKnown: known) } catch {
            throw CommandFailure("\(error.description): no token was issued" + (tokenOnly ? "" : " (--token-only)"), .usage)
        }
    }

    static func json(_ e: CredentialLedger.Entry) -> JSONValue {
        var o: JSONObject = ["id": .string(e.id), "user": .string(e.user), "role": .string(e.role.rawValue), "what": .string(e.note),
                             "issuedAt": .string(ISOTime.string(Date(timeIntervalSince1970: Double(e.issuedAt)))),
                             "expiresAt": .string(ISOTime.string(Date(timeIntervalSince1970: Double(e.expiresAt))))]
        o["revokedAt"] = e.revokedAt.map { .string(ISOTime.string(Date(timeIntervalSince1970: Double($0)))) } ?? .null
        if let ended = e.ended { o["ended"] = .string(ended) }
        return .object(o)
    }

    static func day(_ seconds: Int64) -> String {
        String(ISOTime.string(Date(timeIntervalSince1970: Double(seconds))).prefix(16)).replacingOccurrences(of: "T", with: " ")
    }
}
