import FPAnalysis
import Foundation
import Synchronization

/// What a train/test evaluation selected, said before the long work starts:
/// a selection that also takes another dataset's documents (both label
/// theirs set=train/set=test) shows at once, not after 15 silent minutes.
enum EvalSelection {
    /// `selected: train 4,104 fingerprints (ble-flat-robot), test 719 (ble-flat-robot)`; with
    /// more than one dataset each side names them with their counts, and a hint follows.
    static func line(train: DatasetCounts, test: DatasetCounts, trainText: String, testText: String) -> String {
        let trainSets = train.list, testSets = test.list
        let (trainCount, testCount) = (trainSets.map(\.count).reduce(0, +), testSets.map(\.count).reduce(0, +))
        var line = "selected: train \(number(trainCount)) \(trainCount == 1 ? "fingerprint" : "fingerprints")"
            + describe(trainSets) + ", test \(number(testCount))" + describe(testSets)
        if let wide = [("--train", trainText, trainSets), ("--test", testText, testSets)].first(where: { $0.2.count > 1 }) {
            line += "; \(wide.0) \(wide.1) spans \(wide.2.count) datasets: add dataset=NAME to keep to one"
        }
        return line
    }

    /// " (uji-lib-longterm)", or " from 2 datasets (uji-lib-longterm 63,504, ble-flat-robot 4,104)".
    private static func describe(_ sets: [(name: String, count: Int)]) -> String {
        if sets.count == 1 { return " (\(sets[0].name))" }
        return " from \(sets.count) datasets (" + sets.map { "\($0.name) \(number($0.count))" }.joined(separator: ", ") + ")"
    }

    /// 67608 → "67,608": counts this large are read at a glance with separators.
    static func number(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}

/// Datasets in the order their first fingerprint came, with their counts;
/// fprint's own measurements have none. Counted by runs: a dataset's
/// fingerprints come together, and hashing each name was 20 ms of 63,504.
struct DatasetCounts {
    private var order: [String] = [], counts: [String: Int] = [:]
    private var run: (name: String, count: Int)?

    mutating func add(_ fp: Fingerprint) {
        let name = fp.labels.dataset ?? "own measurements"
        if run?.name == name { run!.count += 1 } else { close(); run = (name, 1) }
    }

    var list: [(name: String, count: Int)] {
        var all = self
        all.close()
        return all.order.map { ($0, all.counts[$0]!) }
    }

    private mutating func close() {
        guard let run else { return }
        if counts[run.name] == nil { order.append(run.name) }
        counts[run.name, default: 0] += run.count
        self.run = nil
    }
}

/// The progress line of a train/test evaluation on a terminal (stderr):
/// searches done of all, the share and the time left, redrawn at most 4
/// times a second from whichever group's thread reports. Nothing when
/// stderr is not a terminal.
final class EvalProgress: Sendable {
    private struct State {
        var done = 0
        var lastDrawn: ContinuousClock.Instant?
    }

    private let total: Int
    private let shown: Bool
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    static let interval = Duration.milliseconds(250)

    init(total: Int) {
        self.total = total
        shown = Terminal.stderrIsTTY && total > 0
        if shown { Terminal.status(Self.line(done: 0, total: total, elapsed: .zero, width: Terminal.columns)) }
    }

    /// One test fingerprint's search is done.
    func step() {
        guard shown else { return }
        let now = ContinuousClock.now
        let due: Int? = state.withLock { s in
            s.done += 1
            if let last = s.lastDrawn, now - last < Self.interval { return nil }
            s.lastDrawn = now
            return s.done
        }
        if let due { Terminal.status(Self.line(done: due, total: total, elapsed: now - started, width: Terminal.columns)) }
    }

    /// Clears the line before the results.
    func finish() {
        if shown { Terminal.endStatusIfOpen() }
    }

    /// `eval: 12,345 of 95,038 test searches · 13 % · about 3 min 10 s left`, fitted to `width`.
    static func line(done: Int, total: Int, elapsed: Duration, width: Int) -> String {
        let share = total > 0 ? done * 100 / total : 100
        var parts = [StatusLine.Part(text: "eval: \(EvalSelection.number(done)) of \(EvalSelection.number(total)) test searches", rank: 0),
                     StatusLine.Part(text: "\(share) %", rank: 2)]
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Once a little is done: the first searches alone say little of the rest.
        if done > 0, done < total, seconds >= 1 {
            let left = seconds / Double(done) * Double(total - done)
            parts.append(.init(text: "about \(duration(left)) left", rank: 1))
        }
        return StatusLine.fit(parts, width: width, separator: " · ")
    }

    /// 190 → "3 min 10 s"; 7,300 → "2 h 1 min".
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }
}
