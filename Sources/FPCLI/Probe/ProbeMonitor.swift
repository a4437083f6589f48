import ArgumentParser
import FPConfig
import FPCore
import FPLinuxRadios
import FPProbe
import FPStore
import Foundation

/// `fprint probe --every`: the network watched over hours or days, one
/// stored document a run (`ProbeRunDocument`), no radios needed.
///
/// Runs are due at start + n × interval by the wall clock. A run that
/// would start more than half an interval late (the machine was suspended,
/// a run overran) is not run: the missed slots stay a gap in the series,
/// never a burst of catch-up runs, and are counted on stderr. The wait is
/// taken a second at a time against the wall clock, since a sleeping
/// timer does not count a suspend.
struct ProbeMonitor {
    var options: ProbeOptions
    var intervalS: Int
    var count: Int?
    var forS: Int?
    var place: Place?
    var gnss: ProbeGNSS
    var json: Bool

    /// Runs until the count or time is reached; Ctrl-C or SIGTERM between
    /// runs stops at once, during one discards that run: exit 130 either way.
    func run(store: SQLiteDocumentStore, ws: Workspace) async throws {
        let start = Date()
        let device = LinuxDeviceProvider(installIdPath: ws.paths.installIDPath).snapshot()
        let tally = Tally()
        let monitor = self
        do {
            try await Interrupts.cancellable {
                var slot = 0
                while monitor.count.map({ tally.runs < $0 }) ?? true {
                    let due = start.addingTimeInterval(Double(slot * monitor.intervalS))
                    if let forS = monitor.forS, due >= start.addingTimeInterval(Double(forS)) { break }
                    let late = Date().timeIntervalSince(due)
                    if late > Double(monitor.intervalS) / 2 {
                        // Missed slots: the next one due after now, the missed ones a gap.
                        let next = Int((Date().timeIntervalSince(start) / Double(monitor.intervalS)).rounded(.up))
                        tally.missed(next - slot)
                        Terminal.err("probe: \(Terminal.counted(next - slot, "run")) missed (this machine slept or a run overran): left as a gap")
                        slot = next
                        continue
                    }
                    try await Self.sleep(until: due)
                    let n = tally.started()
                    try await monitor.oneRun(n, device: device, store: store, ws: ws)
                    tally.stored()
                    slot += 1
                }
            }
        } catch is CancellationError {
            let during = tally.runs > tally.storedRuns ? "; the run in progress was discarded" : ""
            Terminal.err("stopped: \(Terminal.counted(tally.storedRuns, "probe run")) stored\(during)")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        let missed = tally.missedRuns == 0 ? "" : ", \(tally.missedRuns) missed"
        Terminal.err("probe monitoring done: \(Terminal.counted(tally.storedRuns, "run")) stored\(missed)")
    }

    /// One probe run, watched by gpsd, stored as a document.
    private func oneRun(_ n: Int, device: DeviceSnapshot, store: SQLiteDocumentStore, ws: Workspace) async throws {
        let startedAt = Date()
        Terminal.err("probe run #\(n) at \(ISOTime.string(startedAt)) against \(options.host):\(options.port)…")
        let (report, fixes) = try await gnss.during { try await ProbeRunner.run(options, progress: false) }
        try Task.checkCancellation()
        let body = ProbeRunDocument.body(report, place: place?.resolved(n, fixes), startedAt: startedAt, endedAt: Date(), device: device,
                                         gnss: fixes, run: n)
        let document = NewDocument(id: Workspace.newDocumentID(), body: body)
        let stored = try Interrupts.finishing(note: "storing probe run #\(n)") {
            try Rescue.insert([document], into: store, ws)
        }
        let failed = report.phases.filter { $0.status != .ok && $0.status != .skipped }
        let outcome = failed.isEmpty ? "every phase ran" : failed.map { "\($0.name) \($0.status.rawValue)" }.joined(separator: ", ")
        if json {
            for s in stored { Terminal.out(Workspace.documentJSON(s)) }
        } else {
            Terminal.out(stored.first?.id ?? document.id)
        }
        Terminal.err("probe run #\(n) stored (\(outcome))")
        // The limits are watched run by run: a webhook hears of a drop within one run.
        await AlertsAfterStoring.evaluate(ws)
    }

    /// Where the runs are: one place given, or each run's from GNSS.
    enum Place {
        case given(ProbeRunDocument.Place)
        case fromGNSS(MapInfo)

        /// Run `n`'s place; a run without a fix, or whose fix lies off the map, has none and says so.
        func resolved(_ n: Int, _ fixes: ProbeGNSS.Fixes) -> ProbeRunDocument.Place? {
            switch self {
            case .given(let place): return place
            case .fromGNSS(let map):
                guard let fix = fixes.first?.fix, let geo = map.geo else {
                    Terminal.err("probe run #\(n): no GNSS fix at its start: stored without a place")
                    return nil
                }
                let point = geo.point(lat: fix.lat, long: fix.long, scale: map.scale)
                if let why = map.offMap(point) {
                    Terminal.err("probe run #\(n): \(why): stored without a place")
                    return nil
                }
                return .init(map: map.id, point: point, rule: "gnss", accuracyM: fix.accuracy)
            }
        }
    }

    /// Waits until `due` by the wall clock, a second at a time.
    static func sleep(until due: Date) async throws {
        while true {
            let left = due.timeIntervalSinceNow
            if left <= 0 { return }
            try await Task.sleep(nanoseconds: UInt64(min(left, 1) * 1e9))
        }
    }

    /// Runs started, stored and missed, shared with the cancellable task.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts = (started: 0, stored: 0, missed: 0)
        var runs: Int { lock.withLock { counts.started } }
        var storedRuns: Int { lock.withLock { counts.stored } }
        var missedRuns: Int { lock.withLock { counts.missed } }
        func started() -> Int { lock.withLock { counts.started += 1; return counts.started } }
        func stored() { lock.withLock { counts.stored += 1 } }
        func missed(_ n: Int) { lock.withLock { counts.missed += n } }
    }
}
