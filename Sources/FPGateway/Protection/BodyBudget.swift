import Foundation
import HTTPTypes

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

/// One request's share of the budget: it grows with the body and is given
/// back, with the freed heap, when the request is done.
final class BodyReservation: @unchecked Sendable {
    /// Bodies this large leave enough freed heap behind to be worth trimming.
    static let trimThreshold = 4 << 20

    let budget: BodyBudget
    /// Budget bytes per body byte (a body is parsed and written while held).
    let weight: Int
    private var held = 0

    init(budget: BodyBudget, weight: Int) {
        self.budget = budget
        self.weight = weight
    }

    /// Holds enough for a body of `bytes`. One body alone always fits (the
    /// budget is at least the body limit), so a large body is never refused forever.
    func grow(to bytes: Int) throws {
        let wanted = min(bytes * weight, budget.capacity)
        guard wanted > held else { return }
        guard budget.reserve(wanted - held) else {
            throw CouchError(status: .serviceUnavailable, error: "service_unavailable",
                             reason: "the gateway is busy with other large requests; try again shortly", retryAfter: 2)
        }
        held = wanted
    }

    /// `grow(to:)` for an answer under way, whose status has gone out (a
    /// 503 is too late): waits for other requests to give budget back,
    /// looking every 20 ms, and past `patience` ends the answer (its client
    /// sees it cut and asks again).
    func growWaiting(to bytes: Int, patience: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + patience
        while true {
            do {
                return try grow(to: bytes)
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Gives what is held back, without trimming the heap: between the
    /// batches of one answer, whose next batch takes its share again.
    func giveBack() {
        guard held > 0 else { return }
        budget.release(held)
        held = 0
    }

    func release() {
        guard held > 0 else { return }
        let large = held >= Self.trimThreshold
        giveBack()
        if large { ProcessLimits.trimHeap() }
    }
}
