import FPAnalysis
import Foundation
import Synchronization

/// What a train/test evaluation selected, said before the long work starts:
/// a selection that also takes another dataset's documents (both label
/// theirs set=train/set=test) shows at once, not after 15 silent minutes.
enum EvalSelection {
    /// `selected: train 4,104 fingerprints (ble-flat-robot), test 719 (ble-flat-robot)`; with
    /// more than one dataset each side names them with their counts, and a hint follows.
    static func line(train: [Fingerprint], test: [Fingerprint], trainText: String, testText: String) -> String {
        let trainSets = datasets(train), testSets = datasets(test)
        var line = "selected: train \(number(train.count)) \(train.count == 1 ? "fingerprint" : "fingerprints")"
            + describe(trainSets) + ", test \(number(test.count))" + describe(testSets)
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

    /// Datasets in the order their first fingerprint came; fprint's own measurements have none.
    static func datasets(_ fps: [Fingerprint]) -> [(name: String, count: Int)] {
        var order: [String] = [], counts: [String: Int] = [:]
        for fp in fps {
            let name = fp.labels.dataset ?? "own measurements"
            if counts[name] == nil { order.append(name) }
            counts[name, default: 0] += 1
        }
        return order.map { ($0, counts[$0]!) }
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
