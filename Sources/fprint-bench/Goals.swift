import Foundation

// Issue 63: this machine's speed drifts 2–3× between days, so a time goal
// is a ratio to a reference run beside it in the same invocation,
// alternated (A, R, A, R, …) so that a neighbour's burst lands on both.
// Each row prints both figures, the ratio, its goal, the load and PASS or
// MISS. Memory rows (push and pull peaks) keep absolute goals: memory does
// not drift with load. A miss fails the bench (exit 1) when the machine was
// quiet (1-minute load below `quietLoad`); on a busy machine it is said
// loudly and the bench does not fail.

/// The 1-minute load average.
func oneMinuteLoad() -> Double {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? loads[0] : 0
}

/// How a row's ratio is judged.
enum RatioGoal {
    /// fprint takes at most 1/n of the reference's time (or does n× its rate): reference ÷ figure ≥ n.
    case faster(Double)
    /// fprint takes at most n× the reference's time: figure ÷ reference ≤ n.
    case slowerAtMost(Double)

    /// `ratio` as this goal states it, and whether it is met. Times: lower is better.
    func judge(figure: Double, reference: Double) -> (ratio: Double, met: Bool, text: String) {
        switch self {
        case .faster(let n):
            let r = reference / figure
            return (r, r >= n, String(format: "%.2f× faster (goal ≥ %g×)", r, n))
        case .slowerAtMost(let n):
            let r = figure / reference
            return (r, r <= n, String(format: "%.2f× the reference (goal ≤ %g×)", r, n))
        }
    }
}

/// The goals checked by this run of the bench, and how each went.
final class Goals: @unchecked Sendable {
    static let shared = Goals()
    /// Below this 1-minute load a miss is fprint's, not the neighbours'.
    static let quietLoad = 1.0

    private let lock = NSLock()
    private var misses: [(row: String, load: Double)] = []

    /// A ratio row: `figure` and `reference` in the same unit of time (seconds; for a
    /// rate pass its reciprocal), each described by its text, judged as their ratio.
    func ratio(_ row: String, figure: Double, _ figureText: String, reference: Double, _ referenceText: String,
               goal: RatioGoal, extra: (met: Bool, text: String)? = nil, load: Double = oneMinuteLoad()) {
        let judged = goal.judge(figure: figure, reference: reference)
        let met = judged.met && (extra?.met ?? true)
        let also = extra.map { "; \($0.text) \($0.met ? "met" : "missed")" } ?? ""
        print(String(format: "row %@: %@ — fprint %@ vs %@%@ (load %.2f) %@", row, judged.text, figureText, referenceText,
                     also, load, verdict(met, load)))
        record(row, met: met, load: load)
    }

    /// An absolute row (memory, which does not drift with load): `row: figure (goal …; load …)`.
    func check(_ row: String, _ figure: String, met: Bool, goal: String, reference: String? = nil,
               load: Double = oneMinuteLoad()) {
        let paired = reference.map { "; beside: \($0)" } ?? ""
        print(String(format: "row %@: %@ (absolute goal %@%@; load %.2f) %@", row, figure, goal, paired, load,
                     verdict(met, load)))
        record(row, met: met, load: load)
    }

    private func verdict(_ met: Bool, _ load: Double) -> String {
        met ? "PASS" : (load < Self.quietLoad ? "MISS" : "MISS (busy machine)")
    }

    private func record(_ row: String, met: Bool, load: Double) {
        if !met { lock.withLock { misses.append((row, load)) } }
    }

    /// Exit status of the bench: 1 when a goal was missed on a quiet machine.
    func finish() -> Int32 {
        let missed = lock.withLock { misses }
        guard !missed.isEmpty else { return 0 }
        let quiet = missed.filter { $0.load < Self.quietLoad }
        for m in missed {
            print(String(format: "%@ goal missed: %@ (load %.2f)", m.load < Self.quietLoad ? "FAILED:" : "busy machine,",
                         m.row, m.load))
        }
        if quiet.isEmpty {
            print("goals missed only while the machine was busy (load ≥ \(Self.quietLoad)): not failing; run again on a quiet machine")
            return 0
        }
        return 1
    }
}

/// `rounds` of the measured run and its reference, alternated A, R, A, R, …
/// so that a slow minute falls on both; the highest load seen meanwhile.
func alternated<A, R>(_ rounds: Int, _ measured: (Int) throws -> A, reference: (Int) throws -> R) rethrows
    -> (measured: [A], reference: [R], load: Double)
{
    var a: [A] = [], r: [R] = []
    var load = oneMinuteLoad()
    for round in 0..<rounds {
        a.append(try measured(round))
        r.append(try reference(round))
        load = max(load, oneMinuteLoad())
    }
    return (a, r, load)
}

/// Milliseconds with one decimal, for goal lines.
func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

/// "median 0.21 s (0.20, 0.21, 0.25)".
func secondsLine(_ times: [Double]) -> String {
    String(format: "median %.2f s (%@)", median(times), times.map { String(format: "%.2f", $0) }.joined(separator: ", "))
}

/// Medians of the runs with their peak memory (the track replay rows, absolute).
func mediansLine(_ runs: [Measured]) -> String {
    String(format: "median of %d: %.2f s (CPU %.2f s), peak %.0f MB; runs %@", runs.count, median(runs.map(\.seconds)),
           median(runs.map(\.cpuSeconds)), median(runs.map { Double($0.peakKB) / 1000 }),
           runs.map { String(format: "%.2f s/%.0f MB", $0.seconds, Double($0.peakKB) / 1000) }.joined(separator: ", "))
}
