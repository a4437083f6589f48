import FPTestSupport
import Foundation

// `make bench-abuse`, the duplicate flood: a document of 1 MB, and several
// clients at once asking for its one revision 200 times over in each
// request: `open_revs` as JSON and as multipart (a 9 KB request line) and
// `_bulk_get` with 200 `{id, rev}` entries. The gateway's peak RSS (goal
// < 300 MB), and the largest answer (the revision once: about 1 MB). When
// the gateway answered every repeat and built `open_revs` answers whole,
// one such request took it to 650 MB.

func duplicateFlood(_ gateway: AbuseGateway, clients: Int = 6, seconds: Double = 15, repeats: Int = 200) {
    let auth = "Authorization: Bearer \(gateway.token)\r\n"
    let document = #"{"couchbase_sync_gateway_id":"alice","pad":""# + String(repeating: "p", count: 1 << 20) + #""}"#
    let made = wholeAnswer(gateway, "PUT /fprint/duplicate-flood HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: application/json\r\n",
                           body: Array(document.utf8))
    guard let rev = made.firstMatch(of: /"rev":"([^"]+)"/).map({ String($0.1) }) else {
        print("duplicate flood: the document was not stored: \(made.prefix(200))")
        return
    }
    gateway.resetPeak()
    let list = "%5B" + Array(repeating: "%22\(rev)%22", count: repeats).joined(separator: ",") + "%5D"
    let entries = Array(("{\"docs\":[" + Array(repeating: #"{"id":"duplicate-flood","rev":"\#(rev)"}"#, count: repeats)
        .joined(separator: ",") + "]}").utf8)
    let openRevs = "GET /fprint/duplicate-flood?revs=true&open_revs=\(list) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)"
    let requests: [(String, [UInt8])] = [
        (openRevs + "Accept: application/json\r\n", []),
        (openRevs + "Accept: multipart/mixed\r\n", []),
        ("POST /fprint/_bulk_get?revs=true HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Type: application/json\r\n", entries),
    ]
    let deadline = Date().addingTimeInterval(seconds)
    let statuses = StatusTally()
    let largest = LargestAnswer()
    let group = DispatchGroup()
    for client in 0..<clients {
        group.enter()
        Thread.detachNewThread {
            var i = client
            while Date() < deadline {
                let (head, body) = requests[i % requests.count]
                let answer = wholeAnswer(gateway, head, body: body)
                statuses.add(RawConnection.status(answer))
                largest.saw(answer.utf8.count)
                i += 1
            }
            group.leave()
        }
    }
    group.wait()
    print(String(format: "duplicate flood: %d clients for %.0f s, a 1 MB revision named %d times in each open_revs (JSON, "
                 + "multipart) and _bulk_get: gateway peak %.0f MB (goal < 300), %.0f MB after; largest answer %.1f MB; answers %@",
                 clients, seconds, repeats, gateway.peakMB, gateway.rssMB, Double(largest.bytes) / 1_048_576, statuses.summary))
}

/// One request on a connection of its own; the whole answer, head included.
private func wholeAnswer(_ gateway: AbuseGateway, _ head: String, body: [UInt8]) -> String {
    guard let c = try? RawConnection(port: gateway.port) else { return "" }
    defer { c.close() }
    c.send(head + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
    body.withUnsafeBytes { _ = c.send($0) }
    return c.readAllBlocking(timeout: 300)
}

/// The largest answer several threads saw.
private final class LargestAnswer: @unchecked Sendable {
    private let lock = NSLock()
    private var largest = 0
    func saw(_ bytes: Int) { lock.withLock { largest = max(largest, bytes) } }
    var bytes: Int { lock.withLock { largest } }
}
