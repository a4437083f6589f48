import FPCore
import FPTestSupport
import Foundation
import Testing

/// One small request must not make the gateway build an answer without
/// bound: the real binary, a document of 1 MB, and the same revision asked
/// for 200 times in `open_revs` (a 9 KB request line) and `_bulk_get`. Each
/// revision is answered once, and the gateway holds about one document at a
/// time: about 55 MB of RSS (debug build), where one such `open_revs`
/// took it to 653 MB before.
@Suite(.serialized) struct GatewayAnswerBoundsTests {
    static let repeats = 200

    @Test func aRevisionAskedForManyTimesIsAnsweredOnceInBoundedMemory() async throws {
        let gateway = try await GatewayOpenNetworkTests.Gateway()
        let auth = "Authorization: Bearer \(gateway.token)"
        let pad = String(repeating: "p", count: 1 << 20)
        let put = try await Self.ask(gateway, "PUT", "/fprint/big", [auth, "Content-Type: application/json"],
                                     body: #"{"couchbase_sync_gateway_id":"alice","pad":""# + pad + #""}"#)
        #expect(put.status == 201, "\(put.text.prefix(300))")
        let rev = try #require(try CanonicalJSON.parse(put.text)["rev"]?.stringValue)
        let revText = #""_rev":"\#(rev)""#
        // Each request's own peak: the high-water mark is reset before it.
        var peaks: [String] = [], highest = 0.0
        func peak(_ what: String) {
            let mb = ProcStatus.peakRSSMB(gateway.pid) ?? 0
            peaks.append("\(what) \(Int(mb)) MB")
            highest = max(highest, mb)
            try? "5".write(toFile: "/proc/\(gateway.pid)/clear_refs", atomically: false, encoding: .utf8)
        }
        peak("the PUT")

        let list = "%5B" + Array(repeating: "%22\(rev)%22", count: Self.repeats).joined(separator: ",") + "%5D"
        for (query, accept) in [("revs=true", "application/json"), ("latest=true", "application/json"), ("revs=true", "multipart/mixed")] {
            let answer = try await Self.ask(gateway, "GET", "/fprint/big?\(query)&open_revs=\(list)", [auth, "Accept: \(accept)"])
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.count(revText) == 1, "open_revs, \(query), \(accept): \(answer.count(revText)) copies of the revision")
            peak("open_revs, \(query), \(accept)")
        }
        // `_bulk_get` with the same `{id, rev}` 200 times, and the same id without a revision.
        for entry in [#"{"id":"big","rev":"\#(rev)"}"#, #"{"id":"big"}"#] {
            let body = #"{"docs":["# + Array(repeating: entry, count: Self.repeats).joined(separator: ",") + "]}"
            let answer = try await Self.ask(gateway, "POST", "/fprint/_bulk_get?revs=true", [auth, "Content-Type: application/json"],
                                            body: body)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.count(revText) == 1, "_bulk_get \(entry.prefix(20)): \(answer.count(revText)) copies of the revision")
            peak("_bulk_get " + (entry.contains("rev") ? "{id,rev}" : "{id}"))
        }
        print("gateway peak RSS, a 1 MB document asked for \(Self.repeats) times, request by request: " + peaks.joined(separator: "; "))
        #expect(highest < 150, "\(peaks)")
    }

    /// An answer read whole from a connection of its own (a chunked body dechunked).
    static func ask(_ gateway: GatewayOpenNetworkTests.Gateway, _ method: String, _ path: String, _ headers: [String],
                    body: String = "") async throws -> RawAnswer {
        try await RawAnswer.ask(port: gateway.port, method, path, headers, body: body, timeout: 600)
    }
}
