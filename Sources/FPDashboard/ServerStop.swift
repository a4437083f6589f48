import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// How `fprint gateway` and `fprint dashboard` stop: one path for both.
/// SIGTERM or SIGINT begins a graceful stop; open requests get `grace` to
/// end (live views end theirs as soon as they see `StopNotice`), then they
/// are cancelled; `exitDeadline` after the signal the process leaves in any
/// case (`ExitDeadline`), with `deadlineStatus` (the gateway 0: a service's
/// stop; `fprint dashboard` 130, as every command Ctrl-C interrupts).
package enum ServerStop {
    package static func run(services: [any Service], signals: [UnixSignal], grace: Duration, exitDeadline: Duration?,
                            deadlineStatus: Int32 = 0, processName: String, logger: Logger) async throws {
        // A parent may hand down a blocked SIGTERM (the signal mask survives
        // exec); this thread takes the stop signals so they always arrive.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        if !signals.isEmpty { pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil) }
        var configured = services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        if let exitDeadline {
            configured.append(.init(service: ExitDeadline(after: exitDeadline, status: deadlineStatus, processName: processName),
                                    successTerminationBehavior: .ignore))
        }
        var configuration = ServiceGroupConfiguration(services: configured, gracefulShutdownSignals: signals, logger: logger)
        configuration.maximumGracefulShutdownDuration = grace
        // No maximumCancellationDuration: ServiceLifecycle would end a slow
        // cancellation with a crash (ExitDeadline says why).
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// Set when the server begins to stop: long requests (live views' event
/// streams) look at it and end, instead of holding the stop for their grace.
package final class StopNotice: Sendable {
    private let stopping = Atomic(false)
    package init() {}
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// The service that sets it at the graceful stop.
    package var service: some Service { StopNoticeService(notice: self) }

    fileprivate func set() { stopping.store(true, ordering: .releasing) }
}

private struct StopNoticeService: Service {
    let notice: StopNotice
    func run() async throws {
        try? await gracefulShutdown()
        notice.set()
    }
}

/// Bounds how long a server process takes to stop. ServiceLifecycle's own
/// bound (`maximumCancellationDuration`) ends a slow cancellation with a
/// `fatalError`: a crash report at every SIGTERM that meets a busy machine
/// or a commit in progress, and, with the gateway inside a test process, the
/// whole test run gone (seen in CI: a gateway test stopped beside the rest of
/// the suite on two cores took over the 500 ms it then had). This service
/// waits for the stop instead, then gives the process `after` to end by
/// itself; past that it says so and leaves with `_exit(status)`. What is stored
/// stays stored: SQLite's journal makes a cut commit as if it never began.
struct ExitDeadline: Service {
    let after: Duration
    let status: Int32
    let processName: String

    func run() async throws {
        // Returns when the stop begins; throws when the group is cancelled,
        // which is a stop too.
        try? await gracefulShutdown()
        let seconds = Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18
        let line = "\(processName): still stopping \(String(format: "%.1f", seconds)) s after the stop signal; "
            + "the requests still open are cut\n"
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: seconds)
            _ = line.withCString { write(2, $0, strlen($0)) }
            _exit(status)
        }
    }
}
