import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix

/// One HTTP/1.1 connection to a live server: requests go one after the
/// other, each answer read whole (a chunked or read-until-close body too).
/// Tests open one per concurrent client, as a browser or a replicator would.
package final class HTTPConnection: TestClientProtocol, @unchecked Sendable {
    // Unchecked: the inbound iterator is used by one request at a time, which
    // is how HTTP/1.1 without pipelining goes; `withConnection` runs them.
    private var inbound: NIOAsyncChannelInboundStream<HTTPResponsePart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPRequestPart>
    package let port: Int?

    private init(inbound: NIOAsyncChannelInboundStream<HTTPResponsePart>.AsyncIterator,
                 outbound: NIOAsyncChannelOutboundWriter<HTTPRequestPart>, port: Int) {
        self.inbound = inbound
        self.outbound = outbound
        self.port = port
    }

    /// Connects, runs `operation`, closes. Past `timeout` the connection is
    /// closed under it and `HTTPConnectionError.timedOut` thrown: a bound
    /// against hanging, not a speed check.
    package static func withConnection<Value: Sendable>(
        host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(600),
        _ operation: @escaping @Sendable (HTTPConnection) async throws -> Value
    ) async throws -> Value {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPClientCodec())
                    return try NIOAsyncChannel<HTTPResponsePart, HTTPRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        let raw = channel.channel
        return try await channel.executeThenClose { inbound, outbound in
            let connection = HTTPConnection(inbound: inbound.makeAsyncIterator(), outbound: outbound, port: port)
            return try await withThrowingTaskGroup(of: Value?.self) { group in
                group.addTask { try await operation(connection) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                let first = try await group.next()!
                group.cancelAll()
                guard let first else {
                    raw.close(promise: nil)
                    throw HTTPConnectionError.timedOut
                }
                return first
            }
        }
    }

    package func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws
        -> TestResponse
    {
        var head = HTTPRequest(method: method, scheme: nil, authority: "localhost", path: uri, headerFields: headers)
        if let body { head.headerFields[.contentLength] = String(body.readableBytes) }
        try await outbound.write(.head(head))
        if let body { try await outbound.write(.body(body)) }
        try await outbound.write(.end(nil))

        var answer: HTTPResponse?
        var collected = ByteBuffer()
        while let part = try await inbound.next() {
            switch part {
            case .head(let received):
                // A 1xx is followed by the answer itself.
                if received.status.kind != .informational { answer = received }
            case .body(var chunk):
                collected.writeBuffer(&chunk)
            case .end:
                guard let answer else { continue }
                return TestResponse(head: answer, body: collected)
            }
        }
        throw HTTPConnectionError.closedBeforeTheAnswer
    }
}

package enum HTTPConnectionError: Error {
    case timedOut
    case closedBeforeTheAnswer
}

/// `.live`'s client: each request on a connection of its own.
struct LiveClient: TestClientProtocol {
    let port: Int?

    init(port: Int) {
        self.port = port
    }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        try await HTTPConnection.withConnection(port: port!) { connection in
            try await connection.executeRequest(uri: uri, method: method, headers: headers, body: body)
        }
    }
}
