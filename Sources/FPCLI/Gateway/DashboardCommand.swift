import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPDashboard
import FPSession
import FPStore
import Foundation

/// `fprint dashboard`: the gateway's web dashboard over a local database.
struct DashboardCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Serve the web dashboard of a local database on 127.0.0.1 (maps, heatmaps, coverage, activity, live points).",
        discussion: """
            The same pages as `fprint gateway` serves at /_dashboard/, for the database on this machine, and a Survey page: click the floor plan (or type x and y in metres, as its axes show) to measure there, or walk a route with the target shown on the plan. Measurements run in this process with the radios and options given here, as `fprint measure` and `fprint walk` take them (--simulate, --duration, --probe, …), one at a time whatever the number of tabs. It listens on 127.0.0.1 only and asks for no login: anyone who can reach this machine's loopback (every local user) sees the survey and can start a measurement. To share a survey, run `fprint gateway`, whose dashboard needs a login (and has no Survey page). Beacon registries are found as `fprint beacons` finds them. Points written meanwhile (a walk, a sync) appear on an open map page within a second. Ctrl-C (or SIGTERM) stops the server, and an open Survey page says so: a measurement in progress is discarded, one being stored is finished first, and the exit is then 130 as for `fprint measure` (0 when none was running); a line says which.

            Examples:
              fprint dashboard --port 8080        # then open http://127.0.0.1:8080/
              fprint dashboard --simulate --duration 10 --port 0
              fprint dashboard --db survey.sqlite --view-only --port 0
            """)
    /// The service group stops the server on SIGINT/SIGTERM, gracefully.
    static let catchesInterrupts = false

    @Option(help: "Port on 127.0.0.1 (0: any free port, printed at start).") var port = 8080
    @Flag(help: "Serve the pages only, without the Survey page; the database is opened read-only.") var viewOnly = false
    @Option(help: "Survey page: seconds a point is measured (5–120; default: the measurement-seconds setting).") var duration: Int?
    // `.unconditional`: `--speed-correction -3` is a value, not an unknown option.
    @Option(parsing: .unconditional, help: "Survey page: walking-speed correction −10…+10 (default: the speed-correction setting).")
    var speedCorrection: Int?
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var probing: ProbeCaptureOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(0...65535).contains(port) { throw ValidationError("--port must be 0…65535") }
        if let duration, !StaticMeasurement.allowedSeconds.contains(duration) {
            throw ValidationError("--duration must be 5–120 seconds, got \(duration)")
        }
        if let c = speedCorrection, !WalkPace.correctionRange.contains(c) {
            throw ValidationError("--speed-correction must be −10…+10, got \(c)")
        }
        if probing.probe && capture.fast { throw ValidationError("--probe measures the network in real time: it cannot be combined with --fast") }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let config = try ws.configIfAny()
        let (maps, registries) = try DashboardSetup.maps(config, paths: ws.paths, strict: true)
        let store = try ws.openStore(viewOnly ? .read : .write)
        // The config read above, once: the Survey page needs one (loadConfig says why when none is found).
        let survey = viewOnly ? nil : try surveyRunner(ws, loaded: config ?? ws.loadConfig(), store: store)
        let note = survey.map { "; Survey page: \($0.describe)" } ?? ""
        let stop = StopNotice()
        let rules = try AlertRules.rules(config)
        let dashboard = LocalDashboard.make(store: store, options: .init(maps: maps, registries: registries, survey: survey,
                                                                          alerts: AlertRules.dashboardSource(rules, store: store),
                                                                          alertRules: rules), stop: stop)
        do {
            try await LocalDashboard.run(dashboard, stop: stop, port: port) { bound in
                // Scripts read the port from this line (useful with --port 0).
                Terminal.err("fprint dashboard: serving http://127.0.0.1:\(bound)/ (loopback only, no login)"
                    + note)
            }
        } catch is LocalDashboard.AddressInUse {
            throw CommandFailure("port \(port) on 127.0.0.1 is in use: choose --port", .portInUse)
        }
        // The server ends only at SIGINT/SIGTERM, its normal end (exit 0, as
        // `fprint track` and `fprint scan` end at Ctrl-C) unless it cut a
        // Survey job short: then 130, as `fprint measure` and `fprint walk`
        // (docs/exit-codes.md). The job is read before it is ended.
        let atStop = survey?.current()
        await survey?.stop()
        let (line, cutShort) = Self.stopNote(atStop: atStop, after: survey?.current())
        Terminal.err(line)
        if cutShort { throw ExitCode(ExitStatus.interrupted.rawValue) }
    }

    /// What the stop did to the Survey page's job, and whether it cut one
    /// short: "interrupted: the walk lab-loop on LAB1 in progress was
    /// discarded; nothing of it was stored".
    static func stopNote(atStop: SurveyJob?, after: SurveyJob?) -> (line: String, cutShort: Bool) {
        guard let job = atStop, job.state == .running || job.state == .storing else {
            return ("fprint dashboard: stopped; no measurement was running", false)
        }
        let what = job.kind == "walk" ? "the walk \(job.scenario ?? "") on \(job.map)"
            : String(format: "the measurement at (%g, %g) on %@", job.x ?? 0, job.y ?? 0, job.map)
        let fate = switch (after?.job == job.job ? after?.state : nil, job.state) {
        case (.stored?, _): "\(what) was being stored and was finished first"
        case (.failed?, .running): "\(what) in progress was discarded; nothing of it was stored"
        default: "\(what) was not stored (\(after?.message ?? "it did not end"))"
        }
        return ("interrupted: the dashboard stopped; " + fate, true)
    }

    /// The Survey page's measurer, checked before serving: a bad option or a
    /// store that cannot write fails now, not at the first click.
    private func surveyRunner(_ ws: Workspace, loaded: LoadedConfig, store: SQLiteDocumentStore) throws -> SurveyRunner {
        let settings = try ws.settings()
        try Rescue.preflight(store, ws)
        return SurveyRunner(.init(ws: ws, loaded: loaded, capture: capture, radios: try capture.radios(enabled: settings.radios),
                                  seconds: duration ?? settings.measurementSeconds,
                                  speedCorrection: speedCorrection ?? settings.speedCorrection, probe: try probing.options(ws)),
                            store: store)
    }
}
