import FPCore
import FPProbe
import FPSession
import Foundation

/// `walk --probe`: a probe at the start of every N-th window while the walk
/// goes on, each stored in the document whose window it started in, with the
/// route positions at its start and end.
final class WalkProber: @unchecked Sendable {
    struct Done {
        var startMs: Int, endMs: Int
        var report: ProbeReport
    }

    let options: ProbeOptions
    let startsMs: [Int]
    let clock: any MeasurementClock
    private let lock = NSLock()
    private var done: [Done] = []

    init(options: ProbeOptions, every: Int, windows: [Range<Int>], clock: any MeasurementClock) {
        self.options = options
        startsMs = stride(from: 0, to: windows.count, by: every).map { windows[$0].lowerBound }
        self.clock = clock
    }

    /// Probes at each start until cancelled (the walk ended); a probe in flight finishes.
    func run() async {
        for start in startsMs {
            // A probe that overran its slot: the next one starts when it ends, not in a bunch.
            do { try await clock.sleep(untilMs: start) } catch { return }
            if Task.isCancelled { return }
            let begin = clock.elapsedMs()
            guard let report = try? await ProbeRunner.run(options, progress: false) else { return }
            let result = Done(startMs: begin, endMs: clock.elapsedMs(), report: report)
            lock.withLock { done.append(result) }
        }
    }

    var results: [Done] { lock.withLock { done } }

    /// Adds each probe to the body of the document whose window it started in.
    static func attach(_ results: [Done], to bodies: inout [JSONValue], windows: [Range<Int>], walk: Walk) {
        for r in results {
            guard let index = windows.lastIndex(where: { $0.lowerBound <= r.startMs }) ?? windows.indices.first else { continue }
            let entry = NetworkProbeEntry.json(r.report, start: walk.position(atMs: min(r.startMs, walk.durationMs)),
                                               end: walk.position(atMs: min(r.endMs, walk.durationMs)),
                                               startMs: r.startMs, endMs: r.endMs)
            var list = bodies[index]["networkProbes"]?.arrayValue ?? []
            list.append(entry)
            bodies[index]["networkProbes"] = .array(list)
        }
    }
}
