import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded

// Drives a Hummingbird application from a test: `.router` hands each request
// to the application's responder in this process (no socket), `.live` serves
// it on a free loopback port and sends real HTTP/1.1. Written here rather
// than taken from HummingbirdTesting, whose live client pulls in
// AsyncHTTPClient, swift-nio-ssl and BoringSSL: four of CI's build minutes
// for two request paths the gateway's tests need.

/// How `test(_:_:)` reaches the application.
package enum TestingSetup: Sendable {
    /// Requests go to the responder directly, as the server would hand them over.
    case router
    /// The application serves on 127.0.0.1 at a free port; requests travel over TCP.
    case live
}

/// An answer, with its whole body.
package struct TestResponse: Sendable {
    package var head: HTTPResponse
    package var body: ByteBuffer

    package var status: HTTPResponse.Status { head.status }
    package var headers: HTTPFields { head.headerFields }
}

/// What a test sends its requests through.
package protocol TestClientProtocol: Sendable {
    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse
    /// The port served on (`.live`); nil when there is no socket (`.router`).
    var port: Int? { get }
}

extension TestClientProtocol {
    /// Sends one request and hands its answer to `check`.
    @discardableResult
    package func execute<Value>(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
                                _ check: (TestResponse) async throws -> Value = { $0 }) async throws -> Value {
        try await check(executeRequest(uri: uri, method: method, headers: headers, body: body))
    }
}

extension ApplicationProtocol {
    /// Runs `test` against this application, reached as `setup` says.
    package func test<Value: Sendable>(_ setup: TestingSetup,
                                       _ test: @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        precondition(services.isEmpty && processesRunBeforeServerStart.isEmpty,
                     "the applications under test run no services of their own")
        switch setup {
        case .router:
            return try await test(RouterClient(responder: try await responder, logger: logger))
        case .live:
            return try await LiveServer(self).serve { port in
                try await test(LiveClient(port: port))
            }
        }
    }
}

/// Hands requests to a responder as Hummingbird's server does, without a socket.
private struct RouterClient<Responder: HTTPResponder>: TestClientProtocol
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let logger: Logger

    var port: Int? { nil }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                              body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = Responder.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            // What the server answers to an error nothing turned into a response.
            response = Response(status: .internalServerError)
        }
        let collected = CollectedBody()
        try await response.body.write(BodyCollector(into: collected))
        return TestResponse(head: response.head, body: collected.buffer)
    }
}

/// The body a response writes, gathered.
private final class CollectedBody: @unchecked Sendable {
    // Written by one response's body writer, read after it finished.
    var buffer = ByteBuffer()
}

private struct BodyCollector: ResponseBodyWriter {
    let into: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        into.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
