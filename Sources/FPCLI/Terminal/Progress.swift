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
    private var lastStatus: ContinuousClock.Instant?
    /// Walks: the next waypoint from the target, in metres and direction.
    private let guidance: (@Sendable (MapPoint, Int) -> String)?
    /// Walks: the map's scale, to give the target in metres.
    private let scale: MapScale?
    /// The transmitters heard so far, shown as a table above the line; nil = none.
    private let heard: HeardTransmitters?
    private var lastTable: ContinuousClock.Instant?
    /// The table is redrawn at most this often (real time, also on a virtual clock).
    static let tableInterval = Duration.milliseconds(250)

    init(prefix: String, plainEveryMs: Int, quiet: Bool = false, fast: Bool = false, scale: MapScale? = nil,
         heard: HeardTransmitters? = nil, guidance: (@Sendable (MapPoint, Int) -> String)? = nil) {
        self.scale = scale
        self.heard = heard
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
        // The line is made only when shown: a fast replay ticks 1,000s of times a second.
        if tty {
            guard p.elapsedMs == p.totalMs || realTimePassed(.milliseconds(50), since: &lastStatus) else { return }
            let width = Terminal.columns
            let line = StatusLine.fit(Self.parts(p, prefix: prefix, scale: scale, guidance: guidance), width: width)
            if let table = tableDue(width: width) { Terminal.statusBlock(rows: table, status: line) } else { Terminal.status(line) }
            printedStatus = true
        } else if p.elapsedMs == p.totalMs || (p.elapsedMs >= nextPlainMs && realTimePassed(.seconds(1), since: &lastPlain)) {
            let parts = Self.parts(p, prefix: prefix, scale: scale, guidance: guidance)
            Terminal.err(parts.map(\.text).filter { !$0.isEmpty }.joined(separator: StatusLine.separator))
            nextPlainMs = (p.elapsedMs / plainEveryMs + 1) * plainEveryMs
        }
    }

    /// The line's parts in reading order; on a narrow terminal the
    /// transmitter counts go first, then the documents cut, then the target.
    static func parts(_ p: CaptureProgress, prefix: String, scale: MapScale?, guidance: ((MapPoint, Int) -> String)?) -> [StatusLine.Part] {
        let counts = Radio.allCases.compactMap { r -> String? in
            guard let n = p.counts[r], n > 0 || r == .ble else { return nil }
            return "\(r.label) \(n)"
        }.joined(separator: " · ")
        var parts = [StatusLine.Part(text: prefix, rank: 0),
                     StatusLine.Part(text: String(format: "%.1f of %.0f s", Double(p.elapsedMs) / 1000,
                                                  (Double(p.totalMs) / 1000).rounded(.up)), rank: 1)]
        if let t = p.target {
            if let scale { parts.append(.init(text: String(format: "target (%.1f, %.1f) m", t.x * scale.metersPerUnit,
                                                             t.y * scale.metersPerUnit), rank: 4)) }
            if let w = p.nextWaypoint { parts.append(.init(text: guidance?(t, w) ?? "next: waypoint \(w + 1)", rank: 2)) }
            parts.append(.init(text: Terminal.counted(p.documentsCut, "doc"), rank: 3))
        }
        parts.append(.init(text: counts, rank: 5))
        return parts
    }

    /// The table's lines when it is time to redraw it (a quarter of a second
    /// since the last time: 4 a second at most, each redraw one write), else nil.
    private func tableDue(width: Int) -> [String]? {
        guard let heard else { return nil }
        let now = ContinuousClock.now
        if let lastTable, now - lastTable < Self.tableInterval { return nil }
        let lines = HeardTable.lines(heard, width: width, height: Terminal.rows)
        guard !lines.isEmpty else { return nil }
        lastTable = now
        return lines
    }

    /// On a virtual clock the status line is redrawn at most 20 times a real
    /// second (no eye reads more), and a plain line printed at most once; on
    /// a real one at every tick. `last`: when that kind was last shown.
    private func realTimePassed(_ interval: Duration, since last: inout ContinuousClock.Instant?) -> Bool {
        guard fast else { return true }
        let now = ContinuousClock.now
        if let last, now - last < interval { return false }
        last = now
        return true
    }

    /// Clears the in-place line (and the table above it) before the final output.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if printedStatus { Terminal.endStatus() }
        printedStatus = false
    }
}
