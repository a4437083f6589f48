import Foundation
import ServiceLifecycle

/// Bounds how long `fprint gateway` takes to stop. ServiceLifecycle's own
/// bound (`maximumCancellationDuration`) ends a slow cancellation with a
/// `fatalError`: a crash report at every SIGTERM that meets a busy machine
/// or a commit in progress, and, with the gateway inside a test process, the
/// whole test run gone (seen in CI: a gateway test stopped beside the rest of
/// the suite on two cores took over the 500 ms it then had). This service
/// waits for the stop instead, then gives the process `after` to end by
/// itself; past that it says so and leaves with `_exit(0)`. What is stored
/// stays stored: SQLite's journal makes a cut commit as if it never began.
struct ExitDeadline: Service {
    let after: Duration

    func run() async throws {
        // Returns when the stop begins; throws when the group is cancelled,
        // which is a stop too.
        try? await gracefulShutdown()
        let seconds = Double(after.components.seconds) + Double(after.components.attoseconds) / 1e18
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: seconds)
            let line = "fprint gateway: still stopping \(String(format: "%.1f", seconds)) s after the stop signal; "
                + "the requests still open are cut\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            _exit(0)
        }
    }
}
