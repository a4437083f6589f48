import Foundation

/// Items made one ahead of their consumer on a queue of their own: an
/// import reads and converts the next campaign while the store hashes,
/// compresses and writes the last one.
final class Prefetch<T: Sendable>: @unchecked Sendable {
    private let count: Int
    private let make: @Sendable (Int) -> T
    private let queue = DispatchQueue(label: "fprint.prefetch")
    private let lock = NSLock()
    private var made: [Int: T] = [:]  // guarded by `lock`
    private var ready: [Int: DispatchSemaphore] = [:]  // guarded by `lock`
    private var next = 0

    init(count: Int, make: @escaping @Sendable (Int) -> T) {
        self.count = count
        self.make = make
        start(0)
    }

    private func start(_ i: Int) {
        guard i < count else { return }
        let done = DispatchSemaphore(value: 0)
        lock.withLock { ready[i] = done }
        queue.async { [self] in
            let item = make(i)
            lock.withLock { made[i] = item }
            done.signal()
        }
    }

    /// The next item, waiting for it if it is not made yet; nil after the last.
    func take() -> T? {
        guard next < count else { return nil }
        let i = next
        next += 1
        start(i + 1)
        lock.withLock { ready[i]! }.wait()
        return lock.withLock { made.removeValue(forKey: i) }
    }
}
