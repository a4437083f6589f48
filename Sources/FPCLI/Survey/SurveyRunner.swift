import FPConfig
import FPCore
import FPDashboard
import FPProbe
import FPSession
import FPStore
import Foundation
import Synchronization

/// What the dashboard's Survey page measures with: the engine, radios and
/// options of `fprint measure` and `fprint walk` (the dashboard's own
/// flags), one job at a time, each stored as those commands store it.
final class SurveyRunner: SurveyDesk {
    struct Setup: Sendable {
        var ws: Workspace
        var loaded: LoadedConfig
        var capture: CaptureOptions
        var radios: Set<Radio>
        var seconds: Int
        var speedCorrection: Int
        var probe: ProbeOptions?
    }

    private let setup: Setup
    private let store: SQLiteDocumentStore
    private let slot = SurveySlot()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ setup: Setup, store: SQLiteDocumentStore) {
        self.setup = setup
        self.store = store
    }

    var describe: String {
        let radios = setup.capture.simulate ? "simulated radios (labelled so in the documents)"
            : setup.capture.replaysBLE ? "BLE replayed from a capture" : "this machine's radios"
        return "\(setup.seconds) s at a point, \(radios)" + (setup.capture.fast ? ", on a virtual clock (--fast)" : "")
            + (setup.probe == nil ? "" : ", then a network probe")
    }

    func routes(map: String) -> [SurveyRoute] {
        let scenarios = (try? Workspace.scenarios(of: setup.loaded).scenarios) ?? []
        // A route over several floors is offered on each floor it visits, drawn with that floor's part.
        return scenarios.compactMap { s in
            guard let leg = s.legs.first(where: { $0.mapID == map }) else { return nil }
            return SurveyRoute(id: s.scenarioID, name: s.name, points: leg.route.waypoints,
                               floorMaps: s.legs.count > 1 ? s.legs.map(\.mapID) : [])
        }
    }

    func current() -> SurveyJob? { slot.current() }

    func start(_ order: SurveyOrder) throws(SurveyRefusal) -> SurveyJob {
        switch order {
        case .point(let id, let x, let y):
            guard let map = setup.loaded.appConfig.map(id: id) else { throw SurveyRefusal(.unknown, "There is no map \(id) in the app config.") }
            let point = MapPoint(x: x, y: y)
            if let why = map.offMap(point) {
                // The page takes metres (as its axes show): the refusal gives them beside the map units.
                let perUnit = map.scale.metersPerUnit
                throw SurveyRefusal(.offMap, String(format: "Not measured: %@ (x %.2f m, y %.2f m).", why, x * perUnit, y * perUnit))
            }
            let job = try slot.begin(order, map: id, durationS: Double(setup.seconds))
            launch { await self.measure(job.job, map: id, at: point) }
            return job
        case .walk(let id):
            let loaded = setup.loaded
            guard let scenario = (try? Workspace.scenarios(of: loaded))?.scenario(id: id),
                scenario.legs.allSatisfy({ loaded.appConfig.map(id: $0.mapID) != nil })
            else {
                throw SurveyRefusal(.unknown, "There is no route \(id) (or its map) in the app config.")
            }
            let floorWalk: FloorWalk
            do {
                floorWalk = try FloorWalk(scenario, maps: { loaded.appConfig.map(id: $0)! },
                                          pace: WalkPace(correction: setup.speedCorrection),
                                          sessionId: Workspace.newDocumentID(), force: false)
            } catch {
                throw SurveyRefusal(.offMap, "Route \(id): \(error).")
            }
            let job = try slot.begin(order, map: floorWalk.maps[0], durationS: durationS(of: floorWalk))
            launch { await self.walk(job.job, floorWalk) }
            return job
        }
    }

    /// Ends a job in progress (the dashboard stops): a measurement not yet
    /// storing is discarded, as Ctrl-C discards one of `fprint measure`.
    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }

    private func launch(_ work: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task.detached(operation: work) }
    }

    private func measure(_ job: Int, map: String, at point: MapPoint) async {
        let plan = StaticMeasurement(level: map, point: point, durationMs: setup.seconds * 1000)
        await run(job) {
            let capture = try setup.ws.captureSetup(map: map, loaded: setup.loaded, capture: setup.capture, radios: setup.radios,
                                                    spanMs: plan.durationMs)
            let doc = try await plan.run(capture) { [slot] progress in
                slot.update(job) { $0.elapsedS = Double(progress.elapsedMs) / 1000 }
            }
            var probes: [JSONValue] = []
            if let options = setup.probe {
                slot.update(job) { $0.guidance = "probing the network" }
                probes = [NetworkProbeEntry.json(try await NetworkProbeEntry.run(options), start: point, end: point)]
            }
            slot.update(job) { $0.state = .storing }
            let stored = try MeasurementRecord.point(doc, setup: capture, into: store, setup.ws, networkProbes: probes, keepStored: false)
            Terminal.err(String(format: "survey: stored %@ at (%g, %g) on %@: %@", stored.id, point.x, point.y, map, stored.summary))
            return ([SurveyJob.Stored(id: stored.id, x: point.x, y: point.y)], stored.notes)
        }
    }

    /// Seconds the page counts: walking, and the stairs or lift between floors unless time is virtual.
    private func durationS(of floorWalk: FloorWalk) -> Double {
        let passages = setup.capture.fast ? 0 : floorWalk.parts.reduce(0) { $0 + $1.passageSeconds }
        return Double(floorWalk.walkingMs) / 1000 + Double(passages)
    }

    /// Walks every floor's part in turn (the page follows the part's map),
    /// waiting on the stairs or in the lift between them; stores all the
    /// documents at once at the end, each on its own map.
    private func walk(_ job: Int, _ floorWalk: FloorWalk) async {
        await run(job) {
            var news: [NewDocument] = []
            var stored: [SurveyJob.Stored] = []
            var notes: [String] = []
            var doneS = 0.0
            for (index, part) in floorWalk.parts.enumerated() {
                if index > 0, !setup.capture.fast {
                    let start = part.walk.route.waypoints[0]
                    for left in stride(from: part.passageSeconds, to: 0, by: -1) {
                        slot.update(job) {
                            $0.map = part.map.id
                            $0.target = start
                            $0.elapsedS = doneS + Double(part.passageSeconds - left)
                            $0.guidance = String(format: "take the %@ to %@ and stand at (%.0f, %.0f): on in %d s",
                                                 part.via?.rawValue ?? "stairs", part.map.id, start.x, start.y, left)
                        }
                        try await Task.sleep(nanoseconds: 1_000_000_000)
                    }
                    doneS += Double(part.passageSeconds)
                }
                slot.update(job) { $0.map = part.map.id }
                let recorded = try await walkPart(job, part.walk, doneS: doneS)
                news += recorded.news
                notes += recorded.notes
                stored += zip(recorded.news, recorded.docs).map { new, doc in
                    SurveyJob.Stored(id: new.id, x: doc.position?.x ?? Double(doc.x), y: doc.position?.y ?? Double(doc.y),
                                     map: part.map.id)
                }
                doneS += Double(part.walk.durationMs) / 1000
            }
            slot.update(job) { $0.state = .storing }
            let kept = try Rescue.insert(news, into: store, setup.ws)
            Terminal.err("survey: stored \(Terminal.counted(kept.count, "document")) of walk \(floorWalk.parts[0].walk.scenarioId)"
                + " (session \(floorWalk.sessionId))")
            return (stored, notes)
        }
    }

    /// One floor's part of a walk: recorded, not stored.
    private func walkPart(_ job: Int, _ walk: Walk, doneS: Double) async throws
        -> (news: [NewDocument], docs: [MeasurementDocument], notes: [String])
    {
        let capture = try setup.ws.captureSetup(map: walk.level, loaded: setup.loaded, capture: setup.capture,
                                                radios: setup.radios, spanMs: walk.durationMs, realistic: true)
        let prober = setup.probe.map { WalkProber(options: $0, every: 5, windows: walk.windows, clock: capture.clock) }
        let probing = Task { await prober?.run() }
        defer { probing.cancel() }
        let route = walk.route, scale = walk.scale
        let docs = try await walk.run(capture) { [slot] progress in
            slot.update(job) { job in
                job.elapsedS = doneS + Double(progress.elapsedMs) / 1000
                job.target = progress.target
                if let target = progress.target, let next = progress.nextWaypoint {
                    job.guidance = WalkGuidance.toward(next, of: route, from: target, scale: scale)
                }
            }
        }
        probing.cancel()
        await probing.value
        let (news, notes) = try MeasurementRecord.walk(docs, of: walk, setup: capture, probes: prober?.results)
        return (news, docs, notes)
    }

    /// Runs a job's work and records how it ended; nothing is stored unless the work stored it.
    private func run(_ job: Int, _ work: () async throws -> (stored: [SurveyJob.Stored], notes: [String])) async {
        do {
            let (stored, notes) = try await work()
            slot.update(job) { $0.state = .stored; $0.stored = stored; $0.message = notes.isEmpty ? nil : notes.joined(separator: " ") }
        } catch {
            let why = error is CancellationError ? "the dashboard stopped before it ended; nothing was stored" : "\(error)"
            Terminal.err("survey: job \(job) not stored: \(why)")
            slot.update(job) { $0.state = .failed; $0.message = why }
        }
    }
}
