@testable import FPDashboard
import FPTestSupport
import Foundation
import Hummingbird
import FPHTTPTestSupport
import Testing

/// A viewer going from map page to map page: each left page's live view frees
/// its slot when its connection closes, and a view over the per-client limit
/// is told to retry (browsers give up for good on a 503, and the live view
/// stayed "reconnecting" after five pages).
@Suite struct LiveViewSlotTests {
    static func open(_ port: Int) async throws -> (RawConnection, String) {
        let connection = try RawConnection(port: port)
        connection.send("GET /_dashboard/events?map=J1NP HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        var answer = ""
        // The head and the stream's first lines (its retry and the positions now);
        // five minutes, half the suite's timeouts: a loaded machine answered none in 20 s.
        let deadline = Date().addingTimeInterval(300)
        while !answer.contains("retry:"), Date() < deadline { answer += await connection.readAll(timeout: 1) }
        return (connection, answer)
    }

    @Test func aLeftPageFreesItsSlotAndAViewOverTheLimitIsToldToRetry() async throws {
        let f = try DashboardFixture()
        // A heartbeat of an hour: before, a slot was freed only when a heartbeat failed to write.
        var options = Dashboard.Options(maxStreamsPerClient: 4)
        options.heartbeat = .seconds(3600)
        let app = Application(responder: LocalResponder(dashboard: LocalDashboard.make(store: f.store, options: options)),
                              server: .http1(configuration: .init(additionalChannelHandlers: [ClientGoneWatcher()])),
                              configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // Four pages open at once: four live views.
            var open: [RawConnection] = []
            for _ in 0..<4 {
                let (connection, answer) = try await Self.open(port)
                #expect(RawConnection.status(answer) == 200 && answer.contains("retry: 1000"), "\(answer)")
                open.append(connection)
            }
            // A fifth: not a 503, a stream that asks to be retried in 5 s.
            let (fifth, busy) = try await Self.open(port)
            #expect(RawConnection.status(busy) == 200 && busy.contains("retry: 5000"), "\(busy)")
            fifth.close()
            // Pages left one after another: each next page gets a live view (its slot came back at the close).
            for n in 0..<6 {
                open.removeFirst().close()
                var answer = ""
                for _ in 0..<600 {
                    let (connection, text) = try await Self.open(port)
                    answer = text
                    if text.contains("retry: 1000") { open.append(connection); break }
                    connection.close()
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(answer.contains("retry: 1000"), "page \(n + 6): \(answer)")
            }
            for connection in open { connection.close() }
        }
    }
}
