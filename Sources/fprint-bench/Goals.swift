import Foundation

// Issue 33's rows: each figure is printed with its goal, the reference it is
// paired with (measured in the same run) and the load average when it was
// taken. A missed goal fails the bench (exit 1) when the machine was quiet
// (1-minute load below `quietLoad`); on a busy machine the miss is said
// loudly and the bench does not fail, because the figure says more about
// the neighbours than about fprint.

/// The 1-minute load average.
func oneMinuteLoad() -> Double {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? loads[0] : 0
}

/// The goals checked by this run of the bench, and how each went.
final class Goals: @unchecked Sendable {
    static let shared = Goals()
    /// Below this 1-minute load a miss is fprint's, not the neighbours'.
    static let quietLoad = 1.0

    private let lock = NSLock()
    private var misses: [(row: String, load: Double)] = []

    /// Prints `row: figure (goal …; reference …; load …)` and records a miss.
    func check(_ row: String, _ figure: String, met: Bool, goal: String, reference: String? = nil,
               load: Double = oneMinuteLoad()) {
        let paired = reference.map { "; reference: \($0)" } ?? ""
        let verdict = met ? "met" : (load < Self.quietLoad ? "MISSED" : "MISSED on a busy machine")
        print(String(format: "goal %@: %@ (goal %@%@; load %.2f) %@", row, figure, goal, paired, load, verdict))
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

/// Milliseconds with one decimal, for goal lines.
func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

/// Medians of three runs, the form every row reports.
/// Timed runs without a peak (`runTimedThenPeak`): times and CPU only.
func timedLine(_ runs: [Measured]) -> String {
    String(format: "median of %d: %.2f s (CPU %.2f s); runs %@", runs.count, median(runs.map(\.seconds)),
           median(runs.map(\.cpuSeconds)), runs.map { String(format: "%.2f s", $0.seconds) }.joined(separator: ", "))
}

func mediansLine(_ runs: [Measured]) -> String {
    String(format: "median of %d: %.2f s (CPU %.2f s), peak %.0f MB; runs %@", runs.count, median(runs.map(\.seconds)),
           median(runs.map(\.cpuSeconds)), median(runs.map { Double($0.peakKB) / 1000 }),
           runs.map { String(format: "%.2f s/%.0f MB", $0.seconds, Double($0.peakKB) / 1000) }.joined(separator: ", "))
}
