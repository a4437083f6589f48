import Foundation

/// Reads one pipe to its end on a thread of its own. A child blocks once a
/// pipe holds 64 KB nobody reads, so a runner must drain stdout and stderr
/// together: reading one to the end first deadlocks on a chatty other.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()  // written by the thread before `done` is signalled

    init(_ handle: FileHandle, name: String) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.name = "pipe-reader-\(name)"
        thread.start()
    }

    /// Everything the pipe carried, once its writers have all closed it.
    func waitForEnd() -> Data {
        done.wait()
        return data
    }
}
