import Foundation

/// One memory budget for every request body held at once. A body that
/// does not fit waits for nothing: its request gets 503 with Retry-After,
/// so a flood of large bodies cannot push the gateway out of memory.
final class BodyBudget: @unchecked Sendable {
    let capacity: Int
    private let lock = NSLock()
    private var used = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Takes `bytes` from the budget, or returns false when they do not fit.
    func reserve(_ bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard bytes <= capacity - used else { return false }
        used += bytes
        return true
    }

    func release(_ bytes: Int) {
        lock.lock()
        used -= bytes
        lock.unlock()
    }

    var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return used
    }
}
