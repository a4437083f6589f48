import Foundation
import Synchronization

/// Reads one pipe to its end on a thread of its own. A child blocks once a
/// pipe holds 64 KB nobody reads, so a runner must drain stdout and stderr
/// together: reading one to the end first deadlocks on a chatty other.
public final class PipeDrain: Sendable {
    private let end = Handover<Data>()
    private let received = ReceivedBytes()

    public init(_ handle: FileHandle, name: String) {
        let end = self.end
        let received = self.received
        let thread = Thread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            end.fulfil(received.value)
        }
        thread.name = "pipe-drain-\(name)"
        thread.start()
    }

    /// What the pipe has carried so far.
    public var soFar: Data { received.value }

    /// Everything the pipe carried, once its writers have all closed it.
    public func data() async -> Data { await end.value() }
}

/// Bytes one thread appends while others read them.
final class ReceivedBytes: Sendable {
    private let bytes = Mutex(Data())
    func append(_ chunk: Data) { bytes.withLock { $0.append(chunk) } }
    var value: Data { bytes.withLock { $0 } }
}

extension Process {
    /// Starts the process with its exit handed over as it happens, so tests
    /// await it (`Handover.value()`) instead of blocking in `waitUntilExit`.
    public func startAwaitingExit() throws -> Handover<Int32> {
        let exit = Handover<Int32>()
        terminationHandler = { exit.fulfil($0.terminationStatus) }
        try run()
        return exit
    }
}
