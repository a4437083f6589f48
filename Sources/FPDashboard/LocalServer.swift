import FPCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import UnixSignals

/// `fprint dashboard`: the dashboard alone over a local database, on
/// loopback only, without logins (whoever can reach 127.0.0.1 is the local user).
package enum LocalDashboard {
    /// How often the live view looks for documents another process wrote.
    static let pollInterval: Duration = .milliseconds(500)

    /// `stop`: set when the server begins to stop; live views then end
    /// within a poll instead of holding the stop for their grace.
    package static func make(store: any ReplicableStore, options: Dashboard.Options, stop: StopNotice = StopNotice()) -> Dashboard {
        Dashboard(store: store, access: nil, options: options) { since, timeout in
            // No gateway notifies here: another process (a walk, a sync) writes the file.
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline, !Task.isCancelled, !stop.isStopping {
                let last = try? await BlockingWork.run("fprint.dashboard.store") { () throws(StoreError) -> Int64 in
                    try store.lastSequence()
                }
                if let last, last > since { return true }
                try? await Task.sleep(for: pollInterval)
            }
            return !Task.isCancelled && !stop.isStopping
        }
    }

    /// Another server listens on the port.
    package struct AddressInUse: Error {}

    /// What the process exits with when a stop outlasts its deadline: an
    /// interrupted command's 130, as `fprint dashboard` itself exits after a stop.
    package static let interruptedStatus: Int32 = 130

    /// Serves until SIGINT/SIGTERM on 127.0.0.1:`port` (0: any free port,
    /// handed to `onRunning`), then stops as the gateway does (`ServerStop`):
    /// `stop` must be the dashboard's own (`make`).
    package static func run(_ dashboard: Dashboard, stop: StopNotice, port: Int,
                            onRunning: @escaping @Sendable (Int) async -> Void) async throws {
        let logger = ServerLogHandler.logger(label: "fprint.dashboard")
        let app = Application(
            responder: LocalResponder(dashboard: dashboard),
            server: .http1(configuration: .init(additionalChannelHandlers: [ClientGoneWatcher()])),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "fprint-dashboard"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
        do {
            try await ServerStop.run(services: [app, stop.service], signals: [.sigterm, .sigint], grace: .milliseconds(1500),
                                     exitDeadline: .milliseconds(1500) + .seconds(3), deadlineStatus: interruptedStatus,
                                     processName: "fprint dashboard",
                                     logger: logger)
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw AddressInUse()
        }
    }
}

/// Every path is the dashboard's; `/` leads to it.
struct LocalResponder: HTTPResponder {
    typealias Context = ChannelContext
    let dashboard: Dashboard

    /// Loopback needs no login, so a page of another site must not get in by
    /// DNS rebinding (its name made to point at 127.0.0.1): the browser then
    /// sends that name as Host, and only loopback names are answered.
    static func isLoopbackHost(_ authority: String?) -> Bool {
        guard let authority else { return true }  // no Host: no browser
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.split(separator: "]", maxSplits: 1).first.map { $0.dropFirst() } ?? ""
        } else {
            host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        return ["127.0.0.1", "localhost", "::1"].contains(host.lowercased())
    }

    func respond(to request: Request, context: ChannelContext) async throws -> Response {
        guard Self.isLoopbackHost(request.head.authority) else {
            return Responses.message(.misdirectedRequest, heading: "Wrong address",
                                     text: "This dashboard answers at 127.0.0.1 or localhost only.",
                                     user: nil, canLogout: false)
        }
        let path = request.uri.path
        if path == "/" || Dashboard.handles(path: path, method: request.method, accept: nil) {
            return await dashboard.respond(to: request, client: "local", closed: ConnectionClosed(context.channel))
        }
        return Responses.message(.notFound, heading: "Not found", text: "The dashboard is at /_dashboard/.",
                                 user: Dashboard.localUser, canLogout: false)
    }
}

/// A request context that keeps the connection (client address, local
/// port, when it closes), for the gateway and the local dashboard.
package struct ChannelContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
