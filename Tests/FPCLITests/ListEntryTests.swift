import FPCore
import FPSync
import Foundation
import Testing

@testable import FPCLI

/// `list --json` writes its lines itself; they must be what JSONEncoder
/// (sorted keys, slashes unescaped) wrote from the summary before.
@Suite struct ListEntryTests {
    /// The line as it was written before: JSONEncoder over the summary's
    /// Codable form, then the refusal in the same container.
    struct EncodedBefore: Encodable {
        var summary: DocumentSummary
        var refusal: Refusal?
        enum Keys: String, CodingKey { case refused }

        func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            guard let refusal else { return }
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(["reason": refusal.reason, "gateway": refusal.gateway, "time": refusal.time], forKey: .refused)
        }
    }

    func encoderLine(_ summary: DocumentSummary, _ refusal: Refusal?) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(EncodedBefore(summary: summary, refusal: refusal)), as: UTF8.self)
    }

    func line(_ summary: DocumentSummary, _ refusal: Refusal?) -> String {
        var out: [UInt8] = []
        ListEntry(summary: summary, refusal: refusal).appendLine(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test(arguments: [
        (DocumentSummary(id: "3f2a9c", rev: "1-b6658a70054264256d7b147e8977d1e5", createdAtMs: 1_795_000_102_000,
                         createdAt: "2026-11-18T11:08:22.000Z", level: "J3NP", mode: "walk", x: 1923.4239478151221,
                         y: 1929.101236454917, sessionId: "bench-0", seq: 50, bleCount: 1000, wifiCount: 30,
                         cellCount: 3, geoCount: 1, synced: false), false),
        (DocumentSummary(id: "static/1 \"quoted\" é", rev: "2-aa", createdAtMs: 0, createdAt: "", level: "J1NP",
                         mode: "static", x: 363, y: -701.5, sessionId: nil, seq: nil, bleCount: 0, wifiCount: 0,
                         cellCount: 0, geoCount: 0, synced: true, conflicts: 2, deleted: true), false),
        (DocumentSummary(id: "tab\there\\back", rev: "1-cc", createdAtMs: -5, createdAt: "x", level: "L/2",
                         mode: "walk", x: 0.1, y: 1e-7, sessionId: "S", seq: 0, bleCount: 7, wifiCount: 1,
                         cellCount: 2, geoCount: 3, synced: false), true),
    ])
    func linesAreThoseJSONEncoderWrote(summary: DocumentSummary, refused: Bool) throws {
        let refusal = refused
            ? Refusal(id: summary.id, rev: summary.rev, gateway: "http://gw:5984/fprint", reason: "forbidden: not yours",
                      time: "2026-11-27T10:00:00.000Z")
            : nil
        let written = line(summary, refusal)
        #expect(written.hasSuffix("\n") && written.filter { $0 == "\n" }.count == 1)
        #expect(String(written.dropLast()) == (try encoderLine(summary, refusal)))
    }
}
