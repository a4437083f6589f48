import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPDashboard
import Foundation

/// `fprint dashboard`: the gateway's web dashboard over a local database.
struct DashboardCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the web dashboard of a local database on 127.0.0.1 (maps, heatmaps, coverage, activity, live points).",
        discussion: """
            The same pages as `fprint gateway` serves at /_dashboard/, for the database on this machine. It listens on 127.0.0.1 only and asks for no login: anyone who can reach this machine's loopback (every local user) sees the survey. To share a survey, run `fprint gateway`, whose dashboard needs a login. Beacon registries are found as `fprint beacons` finds them (beacons/<map>.json in your config folder or beside the app config). Points written meanwhile (a walk, a sync) appear on an open map page within a second.

            Examples:
              fprint dashboard --port 8080        # then open http://127.0.0.1:8080/
              fprint dashboard --db survey.sqlite --port 0
            """)
    /// The service group stops the server on SIGINT/SIGTERM, gracefully.
    static let catchesInterrupts = false

    @Option(help: "Port on 127.0.0.1 (0: any free port, printed at start).") var port = 8080
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0…65535") }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        let config = try ws.configIfAny()
        let (maps, registries) = try DashboardSetup.maps(config, paths: ws.paths, strict: true)
        let stop = StopNotice()
        let dashboard = LocalDashboard.make(store: store, options: .init(maps: maps, registries: registries), stop: stop)
        do {
            try await LocalDashboard.run(dashboard, stop: stop, port: port) { bound in
                // Scripts read the port from this line (useful with --port 0).
                Terminal.err("fprint dashboard: serving http://127.0.0.1:\(bound)/ (loopback only, no login)")
            }
        } catch is LocalDashboard.AddressInUse {
            throw CommandFailure("port \(port) on 127.0.0.1 is in use: choose --port", .portInUse)
        }
    }
}
