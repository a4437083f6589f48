import Foundation
import Logging
import Synchronization

/// Log lines an attacker can cause (failed logins), bounded: the first
/// `burst` of each kind per `interval` are written, the rest counted and
/// summed up in one line when the next interval begins. A guessing run
/// wrote 75 MB of stderr before.
final class RateLimitedLog: Sendable {
    let logger: Logger
    let interval: Duration
    let burst: Int
    private struct Window {
        var start: ContinuousClock.Instant
        var written: [String: Int] = [:]
        var suppressed: [String: Int] = [:]
    }
    private let window: Mutex<Window>

    init(logger: Logger, interval: Duration = .seconds(10), burst: Int = 5) {
        self.logger = logger
        self.interval = interval
        self.burst = burst
        window = Mutex(Window(start: .now))
    }

    func warning(_ message: String, _ metadata: Logger.Metadata) { note(.warning, message, metadata) }
    func error(_ message: String, _ metadata: Logger.Metadata) { note(.error, message, metadata) }

    private func note(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
        let now = ContinuousClock.now
        let (write, summary) = window.withLock { w -> (Bool, [String: Int]) in
            var summary: [String: Int] = [:]
            if now - w.start >= interval {
                summary = w.suppressed
                w = Window(start: now)
            }
            let count = w.written[message, default: 0]
            if count < burst {
                w.written[message] = count + 1
                return (true, summary)
            }
            w.suppressed[message, default: 0] += 1
            return (false, summary)
        }
        for (kind, count) in summary.sorted(by: { $0.key < $1.key }) {
            logger.log(level: level, "\(kind): \(count) more not logged in the last \(interval)")
        }
        if write { logger.log(level: level, "\(message)", metadata: metadata) }
    }
}
