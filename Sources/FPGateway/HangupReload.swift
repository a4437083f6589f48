import Foundation
import Logging

/// What SIGHUP does to a running gateway (`systemctl reload`, logrotate):
/// the users file is read again even if its size and times look unchanged,
/// and a file access log is opened again. The gateway handles SIGHUP
/// whatever its options, so a reload never ends it.
struct HangupReload {
    let accessLog: AccessLog?
    let users: UsersSource
    let logger: Logger

    /// Reloads at every SIGHUP while the returned source lives.
    func start() -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { reload() }
        source.resume()
        return source
    }

    /// One line says what was reloaded, or what could not be.
    func reload() {
        var done: [String] = []
        if users.path != nil {
            switch users.reload() {
            case .success(let now): done.append("users file re-read (\(now.count) user\(now.count == 1 ? "" : "s"))")
            case .failure(let problem): logger.error("SIGHUP: \(problem.description); every password is refused until it is mended")
            }
        }
        if let accessLog, accessLog.path != nil {
            do {
                try accessLog.reopen()
                done.append("access log reopened")
            } catch {
                logger.error("SIGHUP: the access log stays where it was", metadata: ["problem": .string("\(error)")])
            }
        }
        // At warning, the gateway's stderr level: whoever reloads reads what happened.
        logger.warning("SIGHUP: \(done.isEmpty ? "nothing to reload (no users file, no access log file)" : done.joined(separator: ", "))")
    }
}
