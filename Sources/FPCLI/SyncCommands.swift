import ArgumentParser
import FPConfig
import FPCore
import FPGateway
import FPNet
import FPStore
import FPSync
import Foundation

/// Options every gateway client command shares.
struct GatewayClientOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Gateway database URL (default: $FPRINT_GATEWAY, else the app config's gatewayURL).",
                               valueName: "url"))
    var gateway: String?

    @Flag(help: "Do not verify the gateway's TLS certificate (unsafe; prints a warning).")
    var insecure = false

    func gatewayURL(_ workspace: Workspace) throws -> URL {
        var text = gateway ?? workspace.environment["FPRINT_GATEWAY"]
        if text == nil || text!.isEmpty { text = try workspace.loadConfig().appConfig.gatewayURL }
        guard let text, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil
        else { throw Failure("invalid gateway URL \(HTTPError.displayURL(text ?? "")): use http(s)://host:port/db", .usage) }
        return url
    }

    func transport() -> CurlHTTPTransport {
        if insecure { Terminal.err("warning: --insecure: the gateway's TLS certificate is not verified") }
        return CurlHTTPTransport(insecure: insecure, userAgent: "fprint/\(Fprint.version)")
    }

    /// `scheme://host:port/_session` for a database URL.
    static func sessionURL(of database: URL) -> URL {
        var parts = URLComponents(url: database, resolvingAgainstBaseURL: false)!
        parts.path = "/_session"
        parts.query = nil
        parts.user = nil
        parts.password = nil
        return parts.url!
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replicate measurements with a CouchDB-protocol gateway (push, then pull).",
        discussion: """
            Works with fprint's own gateway, Apache CouchDB 3.x, Couchbase Sync Gateway and PouchDB Server. Incremental: checkpoints on both sides let the next sync start where this one ended. Before the push, unsigned documents get your user id in couchbase_sync_gateway_id.

            The token comes from --token, else $FPRINT_TOKEN, else the file `fprint login` stored; prefer the last two (arguments are visible to other users in ps).

            Examples:
              fprint login --user alice
              fprint sync
              fprint sync --pull-only --gateway https://couch.example.org/fprint
              FPRINT_TOKEN=… fprint sync --dry-run
            """)

    @Flag(help: "Only send local changes.") var pushOnly = false
    @Flag(help: "Only receive the gateway's changes.") var pullOnly = false
    @Flag(help: "Show what would be sent and received; change nothing on either side.") var dryRun = false
    @Option(help: ArgumentHelp("Bearer token (prefer $FPRINT_TOKEN or `fprint login`).", valueName: "token"))
    var token: String?
    @Option(help: "Documents per batch.") var batchSize = 500
    @Flag(help: "No progress output.") var quiet = false
    @OptionGroup var client: GatewayClientOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if pushOnly && pullOnly { throw ValidationError("--push-only and --pull-only exclude each other") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() async throws {
        try await reportingFailures {
            let workspace = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let url = try client.gatewayURL(workspace)
            let store = try workspace.openStore(.write)
            let source = TokenSource(paths: workspace.paths, environment: workspace.environment)
            let found = try source.token(explicit: token)
            let credentials: SyncCredentials = found.map { .bearer($0.token) } ?? .none
            let remote = RemoteDatabase(url: url, transport: client.transport(), credentials: credentials)
            let userID = try Self.userID(token: found?.token, remote: remote)
            let printer = SyncProgressPrinter(quiet: quiet)
            let replicator = Replicator(store: store, remote: remote, limits: BatchLimits(count: batchSize),
                                        userID: userID, dryRun: dryRun, progress: { printer.update($0) })
            var reports: [SyncReport] = []
            do {
                try replicator.checkRemote()
                if !pullOnly { reports.append(try replicator.push()) }
                if !pushOnly { reports.append(try replicator.pull()) }
            } catch let error as SyncError {
                printer.finish()
                throw Failure(error)
            }
            printer.finish()
            let pushed = reports.first { $0.direction == .push }
            let pulled = reports.first { $0.direction == .pull }
            var parts: [String] = []
            if let pushed {
                parts.append("\(dryRun ? "would send" : "sent") \(pushed.written) of \(pushed.examined) changed")
                if pushed.signed > 0 { parts.append("signed \(pushed.signed) as \(userID ?? "?")") }
            }
            if let pulled { parts.append("\(dryRun ? "would receive" : "received") \(pulled.written) of \(pulled.examined) changed") }
            Terminal.out("\(dryRun ? "dry run: " : "")\(parts.joined(separator: ", ")) — \(remote.displayURL)")
            DamageLog.shared.record(reports.flatMap(\.damaged))
            let rejected = reports.flatMap(\.rejected)
            for line in rejected.prefix(10) { Terminal.err("refused by the gateway: \(line)") }
            if !dryRun {
                try store.putLocalDocument(id: "fprint-last-sync", body: [
                    "time": .string(ISOTime.string(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))),
                    "gateway": .string(remote.displayURL),
                    "sent": .int(Int64(pushed?.written ?? 0)), "received": .int(Int64(pulled?.written ?? 0)),
                    "refused": .int(Int64(rejected.count)),
                ])
            }
            if !rejected.isEmpty {
                throw Failure("the gateway refused \(rejected.count) document(s); they stay unsynced", .authRejected)
            }
        }
    }

    /// The user id documents are signed with: the token's `sub`, else the
    /// name the gateway's `_session` reports.
    static func userID(token: String?, remote: RemoteDatabase) throws -> String? {
        if let token, let claims = TokenAuthority.unverifiedClaims(token) { return claims.subject }
        let session = RemoteDatabase(url: GatewayClientOptions.sessionURL(of: remote.url), transport: remote.transport,
                                     credentials: remote.credentials, retry: .none)
        do {
            let answer = try session.json(.get, [])
            return answer["userCtx"]?["name"]?.stringValue
        } catch {
            return nil
        }
    }
}

/// `sent 120/470` progress: a bar rewritten in place on a TTY, a line per
/// batch when stderr is piped.
final class SyncProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private let tty = Terminal.stderrIsTTY
    private let quiet: Bool
    private var active = false

    init(quiet: Bool) { self.quiet = quiet }

    func update(_ p: SyncProgress) {
        guard !quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        let verb = p.direction == .push ? "sent" : "received"
        if tty {
            let width = 30
            let filled = p.total == 0 ? width : min(width, p.done * width / max(1, p.total))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            Terminal.status("\(p.direction.rawValue) [\(bar)] \(verb) \(p.done)/\(p.total)")
            active = true
        } else if p.total > 0 {
            Terminal.err("\(p.direction.rawValue): \(verb) \(p.done)/\(p.total)")
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if active { Terminal.endStatus() }
        active = false
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Get a token from the gateway and store it for `fprint sync`.",
        discussion: """
            Asks the gateway's _session with your name and password (read from the terminal without echo, or from the first line of standard input when it is not a terminal — never from arguments). The token is stored in the config directory, readable by you only.

            Example:
              fprint login --user alice
              printf '%s\\n' "$PASSWORD" | fprint login --user alice --gateway http://gw:5984/fprint
            """)

    @Option(help: "Your user name on the gateway.") var user: String
    @OptionGroup var client: GatewayClientOptions
    @OptionGroup var configOptions: ConfigOptions

    func run() async throws {
        try await reportingFailures {
            let workspace = Workspace(configOptions: configOptions)
            let url = try client.gatewayURL(workspace)
            let password = try Self.readPassword(user: user)
            let session = RemoteDatabase(url: GatewayClientOptions.sessionURL(of: url), transport: client.transport(),
                                         credentials: .basic(user: user, password: password))
            let answer: JSONValue
            do {
                answer = try session.json(.post, [], body: ["name": .string(user), "password": .string(password)])
            } catch let error as SyncError {
                throw Failure(error)
            }
            guard let token = answer["token"]?.stringValue, !token.isEmpty else {
                throw Failure("the gateway's _session gave no token (is it an fprint gateway? use --token or FPRINT_TOKEN for others)", .protocolError)
            }
            let source = TokenSource(paths: workspace.paths, environment: workspace.environment)
            try source.store(token)
            let expiry = TokenAuthority.unverifiedClaims(token).map {
                " (expires \(ISOTime.string(millisecondsSince1970: $0.expiresAt * 1000)))"
            } ?? ""
            Terminal.err("logged in as \(user); token stored in \(source.tokenPath)\(expiry)")
        }
    }

    static func readPassword(user: String) throws -> String {
        if isatty(STDIN_FILENO) == 1 {
            guard let raw = getpass("password for \(user): ") else { throw Failure("no password given", .usage) }
            return String(cString: raw)
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw Failure("no password on standard input", .usage)
        }
        return line
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show sync status: pending documents, last sync, gateway, token expiry.")

    @Option(help: ArgumentHelp("Gateway database URL.", valueName: "url")) var gateway: String?
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func run() async throws {
        try await reportingFailures {
            let workspace = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let store = try workspace.openStore(.read)
            let pending = try store.list(ListQuery(unsyncedOnly: true)).count
            Terminal.out("documents:  \(try store.count())")
            Terminal.out("pending:    \(pending) not yet synced")
            if let last = try store.localDocument(id: "fprint-last-sync") {
                Terminal.out("last sync:  \(last["time"]?.stringValue ?? "?") with \(last["gateway"]?.stringValue ?? "?") (sent \(last["sent"]?.intValue ?? 0), received \(last["received"]?.intValue ?? 0))")
            } else {
                Terminal.out("last sync:  never")
            }
            let url = gateway ?? workspace.environment["FPRINT_GATEWAY"] ?? (try? workspace.loadConfig().appConfig.gatewayURL)
            Terminal.out("gateway:    \(url.map(HTTPError.displayURL) ?? "not configured")")
            let source = TokenSource(paths: workspace.paths, environment: workspace.environment)
            if let found = try source.token(explicit: nil) {
                let (token, origin) = (found.token, found.origin)
                if let claims = TokenAuthority.unverifiedClaims(token) {
                    let expired = Double(claims.expiresAt) < Date().timeIntervalSince1970
                    Terminal.out("token:      user \(claims.subject) from \(origin), \(expired ? "EXPIRED" : "expires") \(ISOTime.string(millisecondsSince1970: claims.expiresAt * 1000))")
                } else {
                    Terminal.out("token:      from \(origin) (not a JWT; expiry unknown)")
                }
            } else {
                Terminal.out("token:      none (run `fprint login --user NAME`)")
            }
        }
    }
}
