import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// An application served on 127.0.0.1 at a port the kernel picks, for as
/// long as a test runs.
struct LiveServer<App: ApplicationProtocol> {
    let app: App

    init(_ app: App) {
        self.app = app
    }

    /// Serves until `body`, handed the port, returns; then stops gracefully.
    func serve<Value: Sendable>(_ body: (Int) async throws -> Value) async throws -> Value {
        let (ports, reportPort) = AsyncStream.makeStream(of: Int.self)
        let served = PortReporting(base: app, report: { reportPort.yield($0) })
        let services = ServiceGroup(configuration: .init(services: [served], logger: app.logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { reportPort.finish() }
                try await services.run()
            }
            var portIterator = ports.makeAsyncIterator()
            guard let port = await portIterator.next() else {
                try await group.waitForAll()  // the server's own error, if it has one
                throw LiveServerError.didNotStart
            }
            do {
                let value = try await body(port)
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

enum LiveServerError: Error {
    case didNotStart
}

/// The application as it is, bound to a free loopback port it reports once listening.
private struct PortReporting<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let report: @Sendable (Int) -> Void

    var responder: Base.Responder {
        get async throws { try await base.responder }
    }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var logger: Logger { base.logger }
    var configuration: ApplicationConfiguration {
        var configuration = base.configuration
        configuration.address = .hostname("127.0.0.1", port: 0)
        return configuration
    }

    func onServerRunning(_ channel: any Channel) async {
        await base.onServerRunning(channel)
        report(channel.localAddress?.port ?? 0)
    }
}
