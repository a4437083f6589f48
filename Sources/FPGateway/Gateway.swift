import FPAnalysis
import FPCore
import FPDashboard
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// What the gateway serves, how it authenticates and what it allows a client.
package struct GatewayConfig: Sendable {
    /// The one database name it serves (`/fprint`).
    package var databaseName: String
    package var tokens: TokenAuthority
    /// The users at start; with `usersFile`, the file is read again whenever it changes.
    package var users: BasicUsers
    package var usersFile: String?
    /// Issued credentials and revocations (nil: in memory, for in-process gateways).
    package var ledgerPath: String?
    /// Addresses (or `a.b.c.d/n`, `x::/n` networks) of reverse proxies whose
    /// `Forwarded`/`X-Forwarded-For` name the client; no one else's are believed.
    package var trustedProxies: [String] = []
    /// Largest request body accepted; larger ones get 413.
    package var bodyLimit: Int
    /// Memory for all request bodies held at once; a body that does not fit gets 503.
    package var bodyBudget: Int
    /// Lifetime of tokens issued by `POST /_session`.
    package var sessionTTL: Int64
    /// The app config served at `/config/app-config.json`; its gatewayURL,
    /// authURL and scenariosURL are rewritten to `publicURL`, so a team needs one server.
    package var appConfig: JSONValue?
    /// The scenarios served at `/config/scenarios.json`.
    package var scenarios: JSONValue?
    /// Other files served under `/config/…` (maps, environments), as is.
    package var files: [String: Data]
    /// Longest a longpoll `_changes` waits.
    package var maxLongpoll: Duration
    /// The URL clients reach this gateway at (behind a proxy: the proxy's);
    /// nil: http://127.0.0.1:<port>.
    package var publicURL: String?
    /// A connection is closed when it sends nothing for this long: unfinished
    /// headers, a stalled body, or an idle keep-alive connection.
    package var idleTimeout: Duration
    /// Most connections open at once (nil: 1,000, or less where the
    /// open-file limit is lower); past it the connection idle the longest is closed.
    package var maxConnections: Int?
    /// Largest request head (request line and headers) a client may send
    /// before it is authenticated or not; larger: 431 and the connection closes.
    package var maxHeaderBytes: Int = 64 << 10
    /// Where the access log goes (nil: none).
    package var accessLogPath: String?
    /// How long open requests may finish after SIGTERM before they are cut.
    package var shutdownGrace: Duration
    /// The dashboard's maps (with their floor-plan pictures) and beacon
    /// registries, read from the app config by the CLI (FPConfig's parser).
    package var dashboardMaps: [String: DashboardMap] = [:]
    package var beaconRegistries: [String: BeaconRegistry] = [:]
    /// The app config's alert rules (read by the CLI), and their alerts over the store
    /// for the dashboard's index (nil: no rules, no section).
    package var alertRules: [AlertRule] = []
    package var dashboardAlerts: (@Sendable () async throws -> [FPAnalysis.Alert])?

    /// Clients reach the gateway over https (cookies get `Secure`).
    package var servedOverHTTPS: Bool { publicURL?.lowercased().hasPrefix("https:") == true }

    package init(databaseName: String = "fprint", tokens: TokenAuthority, users: BasicUsers = BasicUsers(),
                bodyLimit: Int = 32 << 20, bodyBudget: Int = 96 << 20, sessionTTL: Int64 = 30 * 24 * 3600,
                appConfig: JSONValue? = nil, scenarios: JSONValue? = nil, files: [String: Data] = [:],
                maxLongpoll: Duration = .seconds(60), publicURL: String? = nil, idleTimeout: Duration = .seconds(10),
                maxConnections: Int? = nil, accessLogPath: String? = nil, shutdownGrace: Duration = .milliseconds(1500)) {
        self.databaseName = databaseName
        self.tokens = tokens
        self.users = users
        self.bodyLimit = bodyLimit
        self.bodyBudget = max(bodyBudget, bodyLimit)
        self.sessionTTL = sessionTTL
        self.appConfig = appConfig
        self.scenarios = scenarios
        self.files = files
        self.maxLongpoll = maxLongpoll
        self.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.accessLogPath = accessLogPath
        self.shutdownGrace = shutdownGrace
    }
}

extension GatewayConfig {
    /// Connections at once unless told: enough for a team's clients and
    /// browsers, few enough that half-sent heads cannot fill memory.
    package static let defaultMaxConnections = 1000
}

/// A gateway put together: the application plus the services beside it.
package struct GatewayAssembly {
    let app: any Service
    let notifierService: ChangeNotifierService
    /// Set at the graceful stop: a long write stops between documents.
    let stop: StopNotice
    let logger: Logger
    let shutdownGrace: Duration
    /// The access log written to a file, which SIGHUP opens again (log rotation).
    let accessLog: AccessLog?
    /// The users file, which SIGHUP reads again.
    let users: UsersSource

    /// Runs until the given signals (or task cancellation) stop it; open
    /// requests get `shutdownGrace` to finish, then they are cancelled.
    /// `exitDeadline`: the process leaves that long after the stop began if
    /// it has not ended by then (`ExitDeadline`); nil (in-process gateways
    /// of tests and benchmarks) waits for the cancellation to finish.
    package func run(signals: [UnixSignal], exitDeadline: Duration? = nil) async throws {
        try await ServerStop.run(services: [app, notifierService, stop.service], signals: signals, grace: shutdownGrace,
                                 exitDeadline: exitDeadline, processName: "fprint gateway", logger: logger)
    }
}

/// Builds the gateway over any replicable store.
package func buildGateway(
    store: any ReplicableStore, config: GatewayConfig, host: String = "127.0.0.1", port: Int = 5984,
    logger: Logger? = nil, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> GatewayAssembly {
    let logger = logger ?? ServerLogHandler.logger(label: "fprint.gateway", level: .info)
    let stop = StopNotice()
    let (app, notifier, accessLog, users) = try makeApplication(store: store, config: config, host: host, port: port, logger: logger,
                                                         stop: stop, onServerRunning: onServerRunning)
    return GatewayAssembly(app: app, notifierService: ChangeNotifierService(notifier: notifier), stop: stop, logger: logger,
                           shutdownGrace: config.shutdownGrace, accessLog: accessLog, users: users)
}

/// The Hummingbird application alone (tests drive it through FPHTTPTestSupport).
package func buildGatewayApplication(store: any ReplicableStore, config: GatewayConfig, port: Int = 0,
                                    logger: Logger? = nil) throws -> some ApplicationProtocol {
    try makeApplication(store: store, config: config, host: "127.0.0.1", port: port,
                        logger: logger ?? ServerLogHandler.logger(label: "fprint.gateway", level: .info), stop: StopNotice(), onServerRunning: { _ in }).0
}

private func makeApplication(
    store: any ReplicableStore, config: GatewayConfig, host: String, port: Int, logger: Logger, stop: StopNotice,
    onServerRunning: @escaping @Sendable (Int) async -> Void
) throws -> (Application<GatewayResponder>, ChangeNotifier, AccessLog?, UsersSource) {
    let openFiles = ProcessLimits.raiseOpenFiles()
    ProcessLimits.returnLargeBuffersToTheKernel()
    // Leave descriptors for the database, the listener and accept() itself.
    let registry = ConnectionRegistry(cap: config.maxConnections ?? min(GatewayConfig.defaultMaxConnections, max(openFiles - 64, 16)))
    let notifier = ChangeNotifier(lastSequence: { try await onStoreThread { try store.lastSequence() } })
    let users = try config.usersFile.map { try UsersSource(path: $0) } ?? UsersSource(fixed: config.users)
    let authenticator = Authenticator(tokens: config.tokens, users: users, ledger: CredentialLedger(path: config.ledgerPath),
                                      throttle: GuessThrottle(), logger: logger)
    // The ledger learns who is in the users file now, before any token is issued against it.
    _ = try? authenticator.currentUsers()
    let livePositions = LivePositions()
    let budget = BodyBudget(capacity: config.bodyBudget)
    let handler = CouchHandler(store: store, config: config, notifier: notifier, authenticator: authenticator,
                               livePositions: livePositions, stop: stop, budget: budget)
    let accessLog: AccessLog? = try config.accessLogPath.map { path in
        path == "-" ? AccessLog(handle: .standardError) : try AccessLog(path: path)
    }
    let dashboard = Dashboard(
        store: store, access: GatewayDashboardAccess(authenticator: authenticator, sessionTTL: config.sessionTTL),
        options: .init(maps: config.dashboardMaps,
                       registries: config.beaconRegistries,
                       secureCookie: config.servedOverHTTPS,
                       alerts: config.dashboardAlerts,
                       alertRules: config.alertRules),
        livePositions: livePositions,
        waitForChange: { since, timeout in
            await notifier.waitForChange(after: since, timeout: timeout)
            return await !notifier.isShuttingDown
        })
    let responder = GatewayResponder(handler: handler, budget: budget, accessLog: accessLog,
                                     dashboard: dashboard, proxies: try TrustedProxies(config.trustedProxies))
    let idle = config.idleTimeout.components
    // Heads are bounded before anyone is known: with the connection cap,
    // what unauthenticated clients can make the gateway hold is cap × this.
    let heads = HTTP1Channel.Configuration.DecoderConfiguration(
        maxHeaderFieldSize: min(config.maxHeaderBytes, 16 << 10), maxHeaderListSize: config.maxHeaderBytes, maxHeaderFieldCount: 100)
    let http = HTTP1Channel.Configuration(
        additionalChannelHandlers: [ConnectionGuardHandler(registry: registry), ClientGoneWatcher()],
        idleTimeout: TimeAmount.nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000),
        httpDecoderConfiguration: heads)
    let app = Application(
        responder: responder, server: .http1(configuration: http),
        configuration: .init(address: .hostname(host, port: port), serverName: "fprint-gateway"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger)
    return (app, notifier, accessLog, users)
}

/// Why `fprint gateway` could not start serving.
package enum GatewayStartError: Error {
    /// Another server listens on the address.
    case addressInUse
    /// A setting could not be used (the access log, …).
    case setup(String)
}

/// Runs the gateway until SIGTERM/SIGINT (`fprint gateway`).
package func runGateway(store: any ReplicableStore, config: GatewayConfig, host: String, port: Int, logger: Logger,
                       onServerRunning: @escaping @Sendable (Int) async -> Void) async throws {
    let gateway: GatewayAssembly
    do {
        gateway = try buildGateway(store: store, config: config, host: host, port: port, logger: logger,
                                   onServerRunning: onServerRunning)
    } catch let error as GatewaySetupError {
        throw GatewayStartError.setup(error.description)
    }
    // `systemctl reload` and logrotate send SIGHUP: users read again, lines to a new log file.
    let hangup = HangupReload(accessLog: gateway.accessLog, users: gateway.users, logger: logger).start()
    defer { hangup.cancel() }
    do {
        // The open requests' grace, then 3 s for the cancelled ones to end.
        try await gateway.run(signals: [.sigterm, .sigint], exitDeadline: config.shutdownGrace + .seconds(3))
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
        throw GatewayStartError.addressInUse
    }
}

/// A gateway running in this process (tests, benchmarks).
package struct RunningGateway: Sendable {
    package let port: Int
    let task: Task<Void, any Error>

    /// Stops the server and waits for it to finish.
    package func stop() async {
        task.cancel()
        _ = await task.result
    }
}

/// Starts the gateway on `host:port` (0: a free port) and returns once it listens.
package func startGateway(store: any ReplicableStore, config: GatewayConfig, host: String = "127.0.0.1",
                         port: Int = 0) async throws -> RunningGateway {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let logger = ServerLogHandler.logger(label: "fprint.gateway")
    let gateway = try buildGateway(store: store, config: config, host: host, port: port, logger: logger) { bound in
        continuation.yield(bound)
        continuation.finish()
    }
    let task = Task {
        defer { continuation.finish() }
        try await gateway.run(signals: [])
    }
    for await bound in ports { return RunningGateway(port: bound, task: task) }
    _ = await task.result
    throw GatewaySetupError("the gateway did not start on \(host):\(port)")
}
