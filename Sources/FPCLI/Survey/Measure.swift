import ArgumentParser
import FPBLE
import FPConfig
import FPCore
import FPSession
import FPStore
import Foundation

struct Measure: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Record a static measurement at a point of a map.",
        discussion: """
            Stands at (x, y) in map units for --duration seconds (default: the measurement-seconds setting, 20 s; allowed 5–120), records every enabled radio and stores one document. With --ble-source btsnoop:FILE, --duration all replays the whole capture (time 0 is the file's first record); a replay cut short by --duration says how many reports it left out. Ctrl-C stops without storing anything (exit 130).

            Examples:
              fprint measure --map J1NP --x 363 --y 701
              fprint measure --map J3NP --x 1441 --y 303 --simulate --duration 10 --no-cell
              fprint measure --map J1NP --x 363 --y 701 --simulate --fast --json
              fprint measure --map J1NP --x 363 --y 701 --ble-source btsnoop:capture.btsnoop --duration all --fast
              fprint measure --map J1NP --x 363 --y 701 --every 15m --for 8h     # unattended monitoring
              fprint measure --map J1NP --x 363 --y 701 --every 30s --count 4 --duration 10
              fprint measure --map J1NP --x 363 --y 701 --probe --every 5m --for 8h   # radios and network quality, as MBTest did

            Periodic measuring (--every): runs start on a fixed schedule (start + n × interval, so a slow run never shifts the later ones; a run that would start late is skipped), each run stores its own document as soon as it ends. --count N stops after N runs, --for D after D has passed (default: until stopped). Ctrl-C or SIGTERM discards the measurement in progress, keeps those already stored and exits 130.

            With --probe, after the radios each run also probes network quality against the gateway's probe port (`fprint probe`; docs/network-quality.md) and stores it in the document's networkProbes[] with the position at its start and end; a phase that fails is stored with its status, and the document is kept.
            """)

    @Option(help: "Map id (see `fprint maps`).") var map: String
    // `.unconditional`: `--x -5` is read as a value (and refused as negative),
    // not as a missing value followed by an unknown option.
    @Option(parsing: .unconditional, help: "X in map units (non-negative, right from the map's origin).") var x: Double
    @Option(parsing: .unconditional, help: "Y in map units (non-negative, down from the map's origin).") var y: Double
    @Option(help: ArgumentHelp(
        "Seconds to measure (5–120; default: the measurement-seconds setting), or all with --ble-source btsnoop:FILE: the whole capture.",
        valueName: "seconds|all"))
    var duration: MeasureLength?
    @Flag(help: "Print the stored document as JSON.") var json = false
    @Flag(help: "Measure at a point outside the map (its extent or outline) all the same.") var force = false
    @Flag(help: "No live table of the transmitters heard on the terminal (the progress line stays).") var quiet = false
    @Option(help: ArgumentHelp("Measure periodically, one run every interval (e.g. 30s, 15m, 1h).", valueName: "interval"))
    var every: String?
    @Option(help: "With --every: stop after this many runs.") var count: Int?
    @Option(name: .customLong("for"), help: ArgumentHelp("With --every: stop after this much time (e.g. 8h).", valueName: "duration"))
    var forDuration: String?
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var probing: ProbeCaptureOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        switch duration {
        case .seconds(let n)? where !StaticMeasurement.allowedSeconds.contains(n):
            throw ValidationError("--duration must be 5–120 seconds (or all, with --ble-source btsnoop:FILE), got \(n)")
        case .all? where !capture.replaysBLE:
            throw ValidationError("--duration all is the length of a btsnoop capture: it needs --ble-source btsnoop:FILE")
        case .all? where every != nil:
            throw ValidationError("--duration all replays one capture once: it cannot be combined with --every")
        default: break
        }
        guard x.isFinite, y.isFinite, x >= 0, y >= 0 else {
            throw ValidationError("--x and --y must be non-negative map units")
        }
        if every == nil && (count != nil || forDuration != nil) {
            throw ValidationError("--count and --for need --every")
        }
        if let every, PeriodicSchedule.seconds(every) == nil {
            throw ValidationError("--every must be a whole number with s, m or h (e.g. 30s, 15m, 1h), got '\(every)'")
        }
        if let forDuration, PeriodicSchedule.seconds(forDuration) == nil {
            throw ValidationError("--for must be a whole number with s, m or h (e.g. 8h), got '\(forDuration)'")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1, got \(count)") }
        if let every, let interval = PeriodicSchedule.seconds(every), case .seconds(let duration)? = duration, interval < duration {
            throw ValidationError("--every (\(interval) s) must be at least --duration (\(duration) s): runs cannot overlap")
        }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let settings = try ws.settings()
        let loaded = try ws.loadConfig()
        let mapInfo = try ws.map(map, in: loaded)
        if !force, let outside = mapInfo.offMap(MapPoint(x: x, y: y)) {
            throw CommandFailure(outside + "; --force measures there all the same", .usage)
        }
        let radios = try capture.radios(enabled: settings.radios)
        var seconds = settings.measurementSeconds
        if case .seconds(let n)? = duration { seconds = n }
        let store = try ws.openStore(.write)  // fail before measuring, not after
        try Rescue.preflight(store, ws)
        let plan = StaticMeasurement(level: mapInfo.id, point: MapPoint(x: x, y: y), durationMs: seconds * 1000)
        let probeOptions = try probing.options(ws)
        let point = MapPoint(x: x, y: y)
        /// The probe after the radios, at the same point: its start and end positions are that point.
        @Sendable func probes() async throws -> [JSONValue] {
            guard let probeOptions else { return [] }
            return [NetworkProbeEntry.json(try await NetworkProbeEntry.run(probeOptions), start: point, end: point)]
        }
        if let every, let interval = PeriodicSchedule.seconds(every) {
            guard interval >= seconds else {
                throw CommandFailure("--every (\(interval) s) must be at least the measurement length (\(seconds) s)", .usage)
            }
            let schedule = PeriodicSchedule(intervalMs: interval * 1000, count: count,
                                            forMs: forDuration.flatMap(PeriodicSchedule.seconds).map { $0 * 1000 })
            let mapID = mapInfo.id, capture = self.capture, json = self.json
            let x = self.x, y = self.y, quiet = self.quiet
            let stored = StoredCount()
            do {
                try await Interrupts.cancellable {
                    try await schedule.run { n in
                        var setup = try ws.captureSetup(map: mapID, loaded: loaded, capture: capture, radios: radios,
                                                        spanMs: plan.durationMs)
                        let heard = HeardTransmitters.live(quiet: quiet, setup: &setup)
                        let printer = ProgressPrinter(prefix: "measure #\(n) \(mapID) (\(Int(x)), \(Int(y)))", plainEveryMs: 1000,
                                                      fast: capture.fast, heard: heard)
                        let doc = try await plan.run(setup) { printer.update($0) }
                        printer.finish()
                        Replay.warnIfCut(setup, hint: "a longer --duration replays more of it")
                        let networkProbes = try await probes()
                        try Self.store(doc, setup: setup, in: store, ws, json: json, networkProbes: networkProbes)
                        stored.increment()
                        await AlertsAfterStoring.evaluate(ws)
                    }
                }
            } catch is CancellationError {
                // Earlier runs stay stored; only the one in progress is discarded.
                Terminal.err("stopped: \(Terminal.counted(stored.value, "document")) stored; the measurement in progress was discarded")
                throw ExitCode(ExitStatus.interrupted.rawValue)
            }
            return
        }
        var setup = try ws.captureSetup(map: mapInfo.id, loaded: loaded, capture: capture, radios: radios,
                                        spanMs: duration == .all ? nil : plan.durationMs)
        let heard = HeardTransmitters.live(quiet: quiet, setup: &setup)
        let once = duration == .all
            ? StaticMeasurement(level: plan.level, point: plan.point, durationMs: Replay.provider(in: setup)?.spanMs ?? plan.durationMs)
            : plan
        let printer = ProgressPrinter(prefix: "measure \(mapInfo.id) (\(Int(x)), \(Int(y)))", plainEveryMs: 1000,
                                      fast: capture.fast, heard: heard)
        let started = setup
        let doc = try await Interrupts.cancellable {
            try await once.run(started) { printer.update($0) }
        }
        printer.finish()
        Replay.warnIfCut(setup, hint: "--duration all replays the whole capture")
        let networkProbes = try await Interrupts.cancellable { try await probes() }
        try Self.store(doc, setup: setup, in: store, ws, json: json, networkProbes: networkProbes)
        await AlertsAfterStoring.evaluate(ws)
    }

    /// `doc` is consumed: its entries are let go once encoded (a replay's can be 100,000s).
    static func store(_ doc: consuming MeasurementDocument, setup: CaptureSetup, in store: SQLiteDocumentStore, _ ws: Workspace,
                      json: Bool, networkProbes: [JSONValue] = []) throws {
        // Recorded: a Ctrl-C from here on no longer discards the measurement.
        var pending = Optional(consume doc)  // handed on whole, not copied, into the closure
        let point = try Interrupts.finishing(note: "storing the measurement") {
            try MeasurementRecord.point(pending.take()!, setup: setup, into: store, ws, networkProbes: networkProbes, keepStored: json)
        }
        for note in point.notes { Terminal.err(note) }
        if json {
            for s in point.stored { Terminal.out(Workspace.documentJSON(s)) }
        } else {
            Terminal.out(point.id)
            Terminal.err("stored \(point.id): \(point.summary)")
        }
    }
}

/// `--duration`: seconds, or `all` of a btsnoop capture.
enum MeasureLength: Equatable, ExpressibleByArgument {
    case seconds(Int)
    case all

    init?(argument: String) {
        if argument == "all" { self = .all } else if let n = Int(argument) { self = .seconds(n) } else { return nil }
    }
}

/// A drift-free schedule: run n starts at start + n × interval on the monotonic clock,
/// whatever the runs before took; a run whose slot has already passed is skipped.
struct PeriodicSchedule: Sendable {
    let intervalMs: Int
    let count: Int?
    let forMs: Int?

    /// "30s", "15m", "8h" → seconds; nil for anything else.
    static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let n = Int(text.dropLast()), n > 0 else { return nil }
        switch unit {
        case "s": return n
        case "m": return n * 60
        case "h": return n * 3600
        default: return nil
        }
    }

    /// Start offsets (ms from the schedule's start) of the runs, given how long the schedule may last.
    func plannedStarts(limit: Int = 100_000) -> [Int] {
        var out: [Int] = []
        var n = 0
        while out.count < min(count ?? limit, limit) {
            let t = n * intervalMs
            if let forMs, t >= forMs { break }
            out.append(t)
            n += 1
        }
        return out
    }

    func run(_ body: (Int) async throws -> Void) async throws {
        let clock = MonotonicClock()
        var runs = 0
        for (index, start) in plannedStarts().enumerated() {
            // Skip slots already missed (a run overran, the machine slept): never bunch runs up.
            if clock.elapsedMs() > start + intervalMs / 2 && index > 0 { continue }
            try await clock.sleep(untilMs: start)
            try Task.checkCancellation()
            runs += 1
            try await body(runs)
        }
    }
}

/// Runs stored so far by a periodic measurement (read after an interruption).
final class StoredCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var value: Int { lock.withLock { n } }
    func increment() { lock.withLock { n += 1 } }
}
