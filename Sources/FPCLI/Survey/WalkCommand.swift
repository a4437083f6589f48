import ArgumentParser
import FPConfig
import FPCore
import FPProbe
import FPSession
import Foundation

struct WalkCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "walk",
        abstract: "Walk a scenario's route, cutting one document every 2 s.",
        discussion: """
            A target point moves along the scenario's waypoints at walking pace: correction 0 is 1 m/s, each step adds or removes 5 % (v = 1 m/s × (1 + 0.05 × c), c = −10…+10). Keep up with it: the progress line shows where the target is and the next waypoint in metres and direction on the plan (up = toward the plan's top). On a terminal a 5 s "get ready" countdown comes first (--ready N changes it, --ready 0 skips it); piped or with --fast there is none unless --ready asks. Every 2 s one document is cut; its position is the route point at the middle of its window. The walk ends at the last waypoint and stores all its documents at once, with a shared sessionId and seq 1, 2, …; Ctrl-C stores nothing (exit 130). A route over several floors (`then` legs, `scenario add --then … --via stairs|lift`) is walked floor by floor, each document stored on the map it was taken on, in one session: between floors the walk waits the stairs' or lift's time (15 s a floor of stairs; a lift 8 s and 4 s a floor; none with --fast), saying where to stand next, and records nothing there.

            Examples:
              fprint walk --scenario scenarioJ1NP1
              fprint walk --scenario scenarioJ3NP1 --simulate --fast
              fprint walk --scenario scenarioJ2NP1 --speed-correction -3 --simulate
              fprint walk --scenario scenarioJ1NP1 --probe --probe-every 5      # network quality every 10 s of the walk

            With --publish, the target position goes to the gateway once a second of the walk (sync's --gateway and credentials) for the dashboard's live view, as `fprint track --publish` does; the documents are stored whatever the gateway does.

            With --probe, a network probe (`fprint probe`; docs/network-quality.md) starts with every --probe-every-th window (default 5: every 10 s) while the walk goes on; each is stored in networkProbes[] of the document it started in, with the route positions at its start and end. It needs real time (not --fast). The walk waits for a probe in flight at its end.
            """)

    @Option(help: "Scenario id (see `fprint scenarios`).") var scenario: String
    // `.unconditional`: `--speed-correction -3` is a value, not an unknown option.
    @Option(parsing: .unconditional, help: "Walking-speed correction −10…+10 (default: the speed-correction setting).")
    var speedCorrection: Int?
    @Flag(help: "Print the stored documents as JSON lines.") var json = false
    @Option(help: "Seconds of \"get ready\" countdown before the target starts moving (default: 5 on a terminal; 0 when stderr is piped or with --fast).")
    var ready: Int?
    @Flag(help: "Walk a route that leaves the map (its extent or outline) all the same.") var force = false
    @Flag(help: "No live table of the transmitters heard on the terminal (the progress line and its guidance stay).") var quiet = false
    @OptionGroup var capture: CaptureOptions
    @OptionGroup var probing: ProbeCaptureOptions
    @Option(help: "With --probe: probe at every N-th window (N × 2 s).") var probeEvery = 5
    @OptionGroup var publishing: PublishOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if let c = speedCorrection, !WalkPace.correctionRange.contains(c) {
            throw ValidationError("--speed-correction must be −10…+10, got \(c)")
        }
        if let ready, !(0...600).contains(ready) { throw ValidationError("--ready must be 0–600 seconds, got \(ready)") }
        if probeEvery < 1 { throw ValidationError("--probe-every must be at least 1 (window), got \(probeEvery)") }
        if probing.probe && capture.fast { throw ValidationError("--probe measures the network in real time: it cannot be combined with --fast") }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let settings = try ws.settings()
        let loaded = try ws.loadConfig()
        let scenario = try ws.scenario(self.scenario, in: loaded)
        let floorWalk = try FloorWalk(scenario, maps: { try ws.map($0, in: loaded) },
                                      pace: WalkPace(correction: speedCorrection ?? settings.speedCorrection),
                                      sessionId: Workspace.newDocumentID(), force: force)
        let radios = try capture.radios(enabled: settings.radios)
        let probeOptions = try probing.options(ws)  // a missing token fails before the walk
        let store = try ws.openStore(.write)
        try Rescue.preflight(store, ws)  // a walk's route is not lost to a store that cannot write
        Terminal.err(floorWalk.headline)
        let readySeconds = WalkGuidance.readySeconds(option: ready, fast: capture.fast)
        var news: [NewDocument] = []
        var publishers: [WalkPublishing] = []
        for (index, part) in floorWalk.parts.enumerated() {
            if index > 0 {
                // The stairs or the lift: nothing is recorded between the plans; a person needs the time.
                let wait = capture.fast ? 0 : part.passageSeconds
                try await Interrupts.cancellable {
                    try await WalkGuidance.passage(to: part, seconds: wait, of: floorWalk.parts.count, index: index)
                }
            }
            let recorded = try await walkPart(part, first: index == 0, readySeconds: readySeconds, ws: ws, loaded: loaded,
                                              radios: radios, probeOptions: probeOptions)
            news += recorded.news
            if let publisher = recorded.publisher { publishers.append(publisher) }
        }
        // The walk is recorded: a Ctrl-C from here on no longer discards it.
        let stored = try Interrupts.finishing(note: "storing the walk's \(Terminal.counted(news.count, "document"))") {
            try Rescue.insert(news, into: store, ws)
        }
        if json {
            for s in stored { Terminal.out(Workspace.documentJSON(s)) }
        } else {
            // Ids are for pipes (`| xargs fprint show`); a person gets the summary.
            if !Terminal.stdoutIsTTY { for s in stored { Terminal.out(s.id) } }
            let onMaps = floorWalk.parts.count > 1 ? " on \(floorWalk.maps.joined(separator: ", "))" : ""
            Terminal.err("stored \(Terminal.counted(stored.count, "document")) of walk session \(floorWalk.sessionId)\(onMaps)"
                + (Terminal.stdoutIsTTY ? " (`fprint list --session \(floorWalk.sessionId)` lists them)" : ""))
        }
        // After the documents are stored: the live view never costs a measurement.
        for publisher in publishers { try await publisher.publisher.finish(failWhenNoneSent: false) }
        await AlertsAfterStoring.evaluate(ws)
    }

    /// Walks one floor's part: its radios set up for its map, a countdown
    /// before the first, the live view and probes as asked. Nothing is stored here.
    private func walkPart(_ part: FloorWalk.Part, first: Bool, readySeconds: Int, ws: Workspace, loaded: LoadedConfig,
                          radios: Set<Radio>, probeOptions: ProbeOptions?) async throws
        -> (news: [NewDocument], publisher: WalkPublishing?)
    {
        let walk = part.walk, mapInfo = part.map
        var setup = try ws.captureSetup(map: mapInfo.id, loaded: loaded, capture: capture, radios: radios,
                                        spanMs: walk.durationMs, realistic: true)
        let route = walk.route, scale = ws.scale(of: mapInfo)
        let heard = HeardTransmitters.live(quiet: quiet, setup: &setup)
        let printer = ProgressPrinter(prefix: "walk", plainEveryMs: Walk.windowMs, fast: capture.fast, scale: scale,
                                      heard: heard) { target, next in
            WalkGuidance.toward(next, of: route, from: target, scale: scale)
        }
        if first, readySeconds > 0 {
            try await Interrupts.cancellable {
                try await WalkGuidance.countdown(seconds: readySeconds, start: route.waypoints[0], scale: scale)
            }
        }
        // The part's time 0 is when its target starts moving, not when the radios were set up.
        if !setup.clock.isVirtual, !first || readySeconds > 0 { setup.clock = MonotonicClock() }
        let started = setup
        let publisher = try publishing.publisher(ws).map { WalkPublishing(publisher: $0, map: mapInfo.id, clock: started.clock) }
        let prober = probeOptions.map { WalkProber(options: $0, every: probeEvery, windows: walk.windows, clock: started.clock) }
        let docs = try await Interrupts.cancellable {
            let probing = Task { await prober?.run() }
            do {
                let docs = try await walk.run(started) { progress in
                    printer.update(progress)
                    publisher?.update(progress)
                }
                probing.cancel()
                await probing.value
                return docs
            } catch {
                probing.cancel()
                throw error
            }
        }
        printer.finish()
        Replay.warnIfCut(setup, hint: "a walk lasts as long as its route")
        let (news, notes) = try MeasurementRecord.walk(docs, of: walk, setup: setup, probes: prober?.results)
        for note in notes { Terminal.err(note) }
        return (news, publisher)
    }
}
