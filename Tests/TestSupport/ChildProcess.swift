import Foundation

/// Reads one pipe to its end on a thread of its own. A child blocks once a
/// pipe holds 64 KB nobody reads, so a runner must drain stdout and stderr
/// together: reading one to the end first deadlocks on a chatty other.
public final class PipeDrain: Sendable {
    private let end = Handover<Data>()

    public init(_ handle: FileHandle, name: String) {
        let end = self.end
        let thread = Thread { end.fulfil(handle.readDataToEndOfFile()) }
        thread.name = "pipe-drain-\(name)"
        thread.start()
    }

    /// Everything the pipe carried, once its writers have all closed it.
    public func data() async -> Data { await end.value() }
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
