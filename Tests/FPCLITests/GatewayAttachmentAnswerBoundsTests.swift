import FPCore
import FPTestSupport
import Foundation
import Testing

/// `_all_docs` and `_changes` with `include_docs=true&attachments=true` put
/// every attachment's bytes inline (base64), as CouchDB does: an answer far
/// larger than the gateway's memory should hold. The real binary, ten
/// documents of an 8 MB attachment each (107 MB of base64 to send): the
/// answer is made a document at a time (`RowBatch`: a batch ends past
/// 1 MiB, held within the body budget), so the gateway's peak RSS stays
/// near one document's worth, not the answer's: 92–95 MB (debug build),
/// where the same answers made whole (no byte bound on a batch) took 193 MB.
@Suite(.serialized) struct GatewayAttachmentAnswerBoundsTests {
    static let documents = 10
    static let attachmentBytes = 8 << 20

    @Test func inlineAttachmentsAreSentADocumentAtATime() async throws {
        let gateway = try await GatewayOpenNetworkTests.Gateway()
        let auth = "Authorization: Bearer \(gateway.token)"
        var digests: [String] = []
        for n in 0..<Self.documents {
            // Bytes that do not compress, different per document.
            var random = SeededRandom(seed: UInt64(n + 1))
            var bytes = [UInt8](repeating: 0, count: Self.attachmentBytes)
            bytes.withUnsafeMutableBytes { raw in
                for at in stride(from: 0, to: raw.count, by: 8) { raw.storeBytes(of: random.next(), toByteOffset: at, as: UInt64.self) }
            }
            digests.append(Attachments.digest(of: bytes))
            let body = #"{"couchbase_sync_gateway_id":"alice","_attachments":{"big.bin":"#
                + #"{"content_type":"application/octet-stream","data":""# + Data(bytes).base64EncodedString() + #""}}}"#
            let put = try await RawAnswer.ask(port: gateway.port, "PUT", "/fprint/big\(n)", [auth, "Content-Type: application/json"],
                                              body: body, timeout: 600)
            #expect(put.status == 201, "\(put.text.prefix(300))")
        }
        var peaks: [String] = [], highest = 0.0
        func peak(_ what: String) {
            let mb = ProcStatus.peakRSSMB(gateway.pid) ?? 0
            peaks.append("\(what) \(Int(mb)) MB")
            if what != "the PUTs" { highest = max(highest, mb) }
            try? "5".write(toFile: "/proc/\(gateway.pid)/clear_refs", atomically: false, encoding: .utf8)
        }
        peak("the PUTs")
        for path in ["/fprint/_all_docs?include_docs=true&attachments=true", "/fprint/_changes?include_docs=true&attachments=true"] {
            let answer = try await RawAnswer.ask(port: gateway.port, "GET", path, [auth, "Accept: application/json"], timeout: 600)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body.count > Self.documents * Self.attachmentBytes * 4 / 3, "\(path): \(answer.body.count) bytes")
            // Every document's bytes are there, whole.
            let doc = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            let rows = (doc?["rows"] ?? doc?["results"]) as? [[String: Any]] ?? []
            let sent = rows.compactMap { row -> String? in
                let entry = ((row["doc"] as? [String: Any])?["_attachments"] as? [String: Any])?["big.bin"] as? [String: Any]
                return (entry?["data"] as? String).flatMap { Data(base64Encoded: $0) }.map { Attachments.digest(of: [UInt8]($0)) }
            }
            #expect(Set(sent) == Set(digests), "\(path): \(sent.count) of \(Self.documents) attachments inline and whole")
            peak(path)
        }
        print("gateway peak RSS, \(Self.documents) documents of an 8 MB attachment inline, request by request: "
            + peaks.joined(separator: "; "))
        #expect(highest < 150, "\(peaks)")
    }
}
