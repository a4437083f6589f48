import Dispatch
import Foundation

/// Runs work that Ctrl-C or SIGTERM cancels: the signal cancels the task, the
/// engine unwinds with CancellationError, and the caller stores nothing.
enum Interrupts {
    static func cancellable<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)  // the dispatch source takes over from the default handler
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            sources.append(source)
        }
        defer {
            for s in sources { s.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return try await task.value
    }
}
