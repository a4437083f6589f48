import Foundation

/// Calls `produce` on a thread of its own, keeping up to `depth` results
/// ahead of the consumer, so that reading the next part of a file overlaps
/// the work on the part read before it (an import's reading of 456 MB was a
/// quarter of a second during which one of two cores waited).
///
/// `produce` answers nil at the end; after that, or after it throws,
/// it is not called again and `next` hands out what is left, then the end
/// or the error. A consumer that stops before the end calls `cancel`: the
/// thread, which holds this object while it runs, then ends after the call
/// in progress. Only the thread calls `produce`.
public final class ReadAhead<Item: Sendable>: @unchecked Sendable {
    // @unchecked: `ready`, `ended` and `cancelled` are touched only with `condition` locked;
    // `produce` only on the thread.
    private let condition = NSCondition()
    private var ready: [Result<Item, any Error>] = []
    private var ended = false
    private var cancelled = false
    private let depth: Int
    private let produce: () throws -> Item?

    public init(depth: Int = 2, name: String, _ produce: @escaping () throws -> Item?) {
        self.depth = max(1, depth)
        self.produce = produce
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// The next result in order; nil at the end. Waits while the thread works.
    public func next() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !ended { condition.wait() }
        guard !ready.isEmpty else { return nil }
        let result = ready.removeFirst()
        condition.broadcast()  // room for the thread's next result
        return try result.get()
    }

    /// Lets the thread end after the call in progress; `next` then answers
    /// what was ready, then nil.
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while ready.count >= depth && !cancelled { condition.wait() }
            let stop = cancelled
            condition.unlock()
            if stop { break }
            let result: Result<Item?, any Error> = Result { try produce() }
            condition.lock()
            defer { condition.broadcast(); condition.unlock() }
            switch result {
            case .success(let item?): ready.append(.success(item))
            case .success(nil):
                ended = true
                return
            case .failure(let error):
                ready.append(.failure(error))
                ended = true
                return
            }
        }
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }
}
