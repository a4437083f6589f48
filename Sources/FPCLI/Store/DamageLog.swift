import FPCore
import Foundation

/// The damaged documents a command skipped. Each is named on stderr when it
/// is met; the command still writes everything intact, and
/// `ReportingCommand` turns a non-empty log into exit 74 at the very end.
final class DamageLog: @unchecked Sendable {
    static let shared = DamageLog()
    private let lock = NSLock()
    private var seen: [DamagedDocument] = []  // guarded by `lock`

    /// Names each damaged document once, on stderr.
    func record(_ damaged: [DamagedDocument]) {
        lock.lock()
        let fresh = damaged.filter { !seen.contains($0) }
        seen += fresh
        lock.unlock()
        for d in fresh { Terminal.err("warning: skipped \(d.id): \(d.description)") }
    }

    var all: [DamagedDocument] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }

    /// The closing failure when anything was skipped, nil otherwise.
    func failure() -> CommandFailure? {
        let damaged = all
        guard !damaged.isEmpty else { return nil }
        let ids = Set(damaged.map(\.id)).sorted()
        let named = ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? ", …" : "")
        return CommandFailure("\(Terminal.counted(ids.count, "damaged document")) left out (\(named)); `fprint check` lists them, `fprint repair` mends or quarantines them", .ioError)
    }
}
