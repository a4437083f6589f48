import FPCore
import FPSession
import Foundation

/// Shows capture progress: a line rewritten in place on a TTY, plain lines
/// (one per `plainEveryMs`) when stderr is piped or logged. With `fast` (a
/// virtual clock) plain lines come at most once per real second, and the last:
/// an hour's replay must not print 3,600 lines in a second.
final class ProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private let tty: Bool
    private let quiet: Bool
    private let plainEveryMs: Int
    private let prefix: String
    private var nextPlainMs = 0
    private var printedStatus = false
    private let fast: Bool
    private var lastPlain: ContinuousClock.Instant?
    /// Walks: the next waypoint from the target, in metres and direction.
    private let guidance: (@Sendable (MapPoint, Int) -> String)?

    init(prefix: String, plainEveryMs: Int, quiet: Bool = false, fast: Bool = false,
         guidance: (@Sendable (MapPoint, Int) -> String)? = nil) {
        tty = Terminal.stderrIsTTY
        self.fast = fast
        self.guidance = guidance
        self.prefix = prefix
        self.plainEveryMs = plainEveryMs
        self.quiet = quiet
    }

    func update(_ p: CaptureProgress) {
        guard !quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        let counts = Radio.allCases.compactMap { r -> String? in
            guard let n = p.counts[r], n > 0 || r == .ble else { return nil }
            return "\(r.label) \(n)"
        }.joined(separator: " · ")
        var parts = [prefix]
        if let t = p.target {
            parts.append(String(format: "go to (%.0f, %.0f)", t.x, t.y))
            if let w = p.nextWaypoint { parts.append(guidance?(t, w) ?? "→ waypoint \(w + 1)") }
            parts.append("docs \(p.documentsCut)")
        }
        let left = max(0, p.totalMs - p.elapsedMs)
        parts.append(String(format: "%.1f/%.1f s (%d s left)", Double(p.elapsedMs) / 1000, Double(p.totalMs) / 1000,
                            Int((Double(left) / 1000).rounded(.up))))
        parts.append(counts)
        let line = parts.filter { !$0.isEmpty }.joined(separator: "  ")
        if tty {
            Terminal.status(line)
            printedStatus = true
        } else if p.elapsedMs == p.totalMs || (p.elapsedMs >= nextPlainMs && realSecondPassed()) {
            Terminal.err(line)
            nextPlainMs = (p.elapsedMs / plainEveryMs + 1) * plainEveryMs
        }
    }

    private func realSecondPassed() -> Bool {
        guard fast else { return true }
        let now = ContinuousClock.now
        if let last = lastPlain, now - last < .seconds(1) { return false }
        lastPlain = now
        return true
    }

    /// Clears the in-place line before the final output.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if printedStatus { Terminal.endStatus() }
        printedStatus = false
    }
}
