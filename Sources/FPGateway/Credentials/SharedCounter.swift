import Synchronization

/// A number several requests read and set at once (which users-file reading the ledger has seen).
final class SharedCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Sets it; the number it held.
    func exchange(_ new: Int) -> Int { value.exchange(new, ordering: .acquiringAndReleasing) }
    func store(_ new: Int) { value.store(new, ordering: .releasing) }
}
