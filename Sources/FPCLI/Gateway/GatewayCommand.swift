import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPDashboard
import FPGateway
import FPProbe
import FPStore
import Foundation
import Logging

struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run fprint's CouchDB-protocol gateway, issue its tokens, or print its probe key.",
        subcommands: [GatewayServe.self, GatewayToken.self, GatewayProbeKey.self],
        defaultSubcommand: GatewayServe.self)
}

/// Where the gateway keeps its secret and database.
struct GatewayFiles: ParsableArguments {
    @Option(help: ArgumentHelp("HS256 secret file, created 0600 if missing (default: <config dir>/gateway-secret).",
                               valueName: "path"))
    var secretFile: String?

    @Option(help: ArgumentHelp("The ledger of issued tokens, sessions and revocations, which the gateway writes (default: beside the secret, <secret-file>.credentials.json).",
                               valueName: "path"))
    var credentialsFile: String?

    func secretPath(_ paths: FPPaths) -> String { secretFile ?? paths.configDirectory + "/gateway-secret" }

    /// The packaged service keeps the secret in read-only /etc and the ledger in its state folder.
    func ledgerPath(_ paths: FPPaths) -> String { credentialsFile ?? CredentialLedger.path(besideSecret: secretPath(paths)) }

    /// Reads the secret, creating a random one (0600) on first use unless not `create`.
    func loadSecret(_ paths: FPPaths, create: Bool = true) throws -> Data {
        let path = secretPath(paths)
        if !FileManager.default.fileExists(atPath: path) {
            guard create else { throw CommandFailure("\(path): no gateway secret (the gateway makes one when it first starts)", .notFound) }
            // URL, not NSString: Foundation's deletingLastPathComponent traps on one-character names.
            try FileManager.default.createDirectory(
                at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
            try PrivateFile.write(path: path, data: Data((TokenAuthority.newSecret() + "\n").utf8))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the gateway secret", .ioError)
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & 0o077 != 0 {
            throw CommandFailure("\(path): the gateway secret must be readable by its owner only (chmod 600)", .usage)
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.count >= 32 else { throw CommandFailure("\(path): the gateway secret is too short (≥ 32 characters)", .dataError) }
        return Data(text.utf8)
    }
}

struct GatewayServe: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the measurement database over the CouchDB replication protocol.",
        discussion: """
            Every request needs a bearer token (`fprint gateway token`), the AuthSession cookie of a `POST /_session`, or Basic credentials of a --users entry. Viewers read; users also write documents signed with their own id (couchbase_sync_gateway_id); admins write any. It also serves the app config, scenarios and simulated radio environments at /config/app-config.json, /config/scenarios.json and /config/environments/<MAP>.json, pointing at --public-url, and the public key probe results are signed with at /config/probe-key.json (`fprint probe --trust-server`).

            Credentials are checked on the headers before any body is read. Bodies share one memory budget (--body-budget; over it: 503 with Retry-After), connections that send nothing for --idle-timeout are closed, and past --max-connections the connection idle the longest is closed. Failed logins slow down per user and per client address.

            Examples:
              fprint gateway --port 5984
              fprint gateway --host 0.0.0.0 --public-url https://fprint.example.org --users users.txt --access-log /var/log/fprint-gateway.jsonl
            """)
    /// The service group stops the server on SIGINT/SIGTERM, gracefully.
    static let catchesInterrupts = false

    @Option(help: "Address to listen on (default: loopback only).") var host = "127.0.0.1"
    @Option(help: "Port (0: any free port, printed at start).") var port = 5984
    @Option(help: ArgumentHelp("The gateway's own SQLite file (default: <data dir>/gateway.sqlite).", valueName: "path"))
    var db: String?
    @Option(help: "Database name served.") var name = "fprint"
    @Option(help: ArgumentHelp("Basic users, one `name:password[:viewer|user|admin]` per line (file must be 0600).", valueName: "path"))
    var users: String?
    @Option(help: ArgumentHelp("The URL clients reach the gateway at, written into the served app config (default: http://127.0.0.1:<port>).", valueName: "url"))
    var publicURL: String?
    @Option(help: ArgumentHelp("Append one JSON line per request to this file (created 0600); - for stderr.", valueName: "path"))
    var accessLog: String?
    @Option(help: "Largest request body in bytes (larger ones get 413).") var bodyLimit = 32 << 20
    @Option(help: "Memory in MB for all request bodies held at once (over it: 503).") var bodyBudget = 96
    @Option(help: "Seconds a connection may send nothing (headers, body, keep-alive) before it is closed.") var idleTimeout = 10
    @Option(help: "Most open connections (default: 1,000, or the open-file limit less 64 if lower); past it the connection idle the longest is closed.")
    var maxConnections: Int?
    @Option(help: ArgumentHelp("Seconds open requests get to finish after SIGTERM or Ctrl-C before they are cut (a large write answers what it stored).",
                               valueName: "seconds"))
    var stopGrace = 1.5
    @Option(help: ArgumentHelp("A reverse proxy (address or network, e.g. 10.0.0.5 or 10.0.0.0/24) whose Forwarded / X-Forwarded-For header names the client; repeat for several. No one else's is believed.",
                               valueName: "address"))
    var trustedProxy: [String] = []
    @Option(help: ArgumentHelp("Also serve network-quality probes (`fprint probe`) on this port, TCP and UDP (docs/network-quality.md).",
                               valueName: "port"))
    var probePort: Int?
    @OptionGroup var files: GatewayFiles
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0…65535") }
        if bodyLimit < 1024 { throw ValidationError("--body-limit must be at least 1024") }
        if bodyBudget < 1 { throw ValidationError("--body-budget must be at least 1 (MB)") }
        if idleTimeout < 1 { throw ValidationError("--idle-timeout must be at least 1 (second)") }
        if !(0.1...600).contains(stopGrace) { throw ValidationError("--stop-grace must be 0.1…600 (seconds)") }
        if let maxConnections, maxConnections < 2 { throw ValidationError("--max-connections must be at least 2") }
        if let probePort, !(0...65535).contains(probePort) { throw ValidationError("--probe-port must be 0…65535") }
        if name.isEmpty || name.hasPrefix("_") || name.contains("/") { throw ValidationError("--name: invalid database name") }
        if let publicURL, !(publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://")) || URL(string: publicURL)?.host == nil {
            throw ValidationError("--public-url must be an http(s) URL with a host, e.g. https://fprint.example.org")
        }
    }

    func perform() async throws {
        let workspace = Workspace(configOptions: configOptions)
        let paths = workspace.paths
        let dbPath = db ?? paths.dataDirectory + "/gateway.sqlite"
        let store: SQLiteDocumentStore
        do { store = try SQLiteDocumentStore(path: dbPath) } catch let e as StoreError {
            throw CommandFailure("\(dbPath): \(e.description)", .ioError)
        }
        let secret = try files.loadSecret(paths)
        let basic = try loadUsers()
        let proxies = trustedProxy
        let (appConfig, scenarios) = servedConfig(workspace)
        // Read once for the served pictures and the dashboard's maps (a remote one is fetched once).
        let loaded = Result { try workspace.configIfAny() }
        var config = GatewayConfig(
            databaseName: name, tokens: TokenAuthority(secret: secret), users: basic, bodyLimit: bodyLimit,
            bodyBudget: bodyBudget << 20, appConfig: appConfig, scenarios: scenarios,
            files: ServedConfigFiles.besideConfig((try? workspace.configLocation()) ?? "", registryFolder: paths.configDirectory,
                                                  pictures: ((try? loaded.get())??.appConfig.maps ?? []).compactMap(\.floorPlan?.image)),
            publicURL: publicURL,
            idleTimeout: .seconds(idleTimeout), maxConnections: maxConnections, accessLogPath: accessLog,
            shutdownGrace: .seconds(stopGrace))
        // The key probe results are signed with, for `fprint probe --trust-server` (public: from the secret, never it).
        let signer = ProbeSigner(gatewaySecret: secret)
        config.files["probe-key.json"] = CanonicalJSON.data(signer.publicKey.json)
        // The users file is read again whenever it changes; issued credentials live beside the secret.
        config.usersFile = users
        config.ledgerPath = files.ledgerPath(paths)
        config.trustedProxies = proxies
        do {
            (config.dashboardMaps, config.beaconRegistries) = try DashboardSetup.maps(try loaded.get(), paths: paths, strict: false)
        } catch {
            // Sync does not need the config: the gateway serves all the same.
            Terminal.err("warning: dashboard: \(error); maps are drawn without the app config")
        }
        let logger = ServerLogHandler.logger(label: "fprint.gateway")
        let name = self.name, host = self.host
        let tokenCheck: TokenCheck
        do { tokenCheck = try TokenCheck(config: config) } catch let error as GatewaySetupError {
            throw CommandFailure(error.description, .usage)
        }
        let probes = try probePort.map { try ProbeService.start(host: host, port: $0, signer: signer, tokens: tokenCheck) }
        defer { probes?.stop() }
        var alertWatch: Task<Void, Never>?
        do {
            if let loadedConfig = try loaded.get() {
                let settings = try AlertRules.settings(loadedConfig.appConfig.alerts, source: loadedConfig.source)
                alertWatch = GatewayAlerts.watch(store: store, databasePath: dbPath, settings: settings)
                // The dashboard's index lists the same rules' alerts; its Network page draws their limits.
                config.dashboardAlerts = AlertRules.dashboardSource(settings.rules, store: store)
                config.alertRules = settings.rules
            }
        } catch {
            // Sync does not need the rules: the gateway serves all the same.
            Terminal.err("warning: alert rules not evaluated: \(error)")
        }
        defer { alertWatch?.cancel() }
        do {
            try await runGateway(store: store, config: config, host: host, port: port, logger: logger) { bound in
                // Tests and scripts read the port from this line (useful with --port 0).
                Terminal.err("fprint gateway: listening on http://\(host):\(bound)/\(name)")
            }
        } catch let error as GatewayStartError {
            switch error {
            case .addressInUse:
                throw CommandFailure("port \(port) on \(host) is in use (by another gateway or CouchDB?): choose --port", .portInUse)
            case .setup(let why):
                throw CommandFailure(why, .usage)
            }
        }
    }

    func loadUsers() throws -> BasicUsers {
        guard let users else { return BasicUsers() }
        var info = stat()
        if stat(users, &info) == 0, info.st_mode & 0o077 != 0 {
            throw CommandFailure("\(users): the users file must be readable by its owner only (chmod 600)", .usage)
        }
        return try Self.readUsers(users)
    }

    /// The users of a users file; what is wrong with it as one line (65).
    static func readUsers(_ path: String) throws -> BasicUsers {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the users file", .dataError)
        }
        do { return try BasicUsers(fileText: String(decoding: data, as: UTF8.self)) } catch {
            throw CommandFailure("\(path): \(error)", .dataError)
        }
    }

    /// The app config and scenarios as JSON, if they are local files.
    func servedConfig(_ workspace: Workspace) -> (JSONValue?, JSONValue?) {
        guard let location = try? workspace.configLocation(), !location.contains("://"),
              let data = FileManager.default.contents(atPath: location),
              let app = try? CanonicalJSON.parse(data)
        else { return (nil, nil) }
        var scenarios: JSONValue?
        if let relative = app["scenariosURL"]?.stringValue, !relative.contains("://") {
            let base = URL(fileURLWithPath: location).deletingLastPathComponent().path
            let path = relative.hasPrefix("/") ? relative : base + "/" + relative
            scenarios = FileManager.default.contents(atPath: path).flatMap { try? CanonicalJSON.parse($0) }
        }
        return (app, scenarios)
    }
}
