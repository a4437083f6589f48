@testable import FPBLE
import FPCore
import FPHCI
import Testing

/// A capture of 1 MiB or more is decoded as two halves side by side
/// (`CapturePiece`): it must give exactly what one pass over the records
/// gives, times, errors and the cut tail included.
@Suite("BLE capture decoded in pieces")
struct CapturePiecesTests {
    typealias Record = (Int64, UInt32, [UInt8])

    /// What one pass gives: the records in order through one `EventDecoder`,
    /// times from the file's first record.
    struct OnePass: Equatable {
        var scans: [BLEScan] = []
        var adErrorTimes: [Int] = []
        var packets: [RawHCIPacket] = []
        var malformed = 0
        var durationMs = 0
        var droppedTailBytes = 0
    }

    static func onePass(_ bytes: [UInt8]) throws -> OnePass {
        var out = OnePass()
        var decoder = EventDecoder()
        var it = try BtsnoopFile(bytes: bytes).makeIterator()
        while let record = try it.next() {
            let ms = Int((record.timestampMicros - it.firstRecordMicros!) / 1000)
            out.packets.append(RawHCIPacket(atMs: ms, h4: [record.type.rawValue] + record.packet, received: record.received))
            guard record.type == .event, record.received else { continue }
            let before = decoder.adErrors
            out.scans += decoder.scans(event: record.packet, time: ms)
            for _ in before..<decoder.adErrors { out.adErrorTimes.append(ms) }
        }
        out.malformed = decoder.malformed
        out.durationMs = Int((it.lastRecordMicros! - it.firstRecordMicros!) / 1000)
        out.droppedTailBytes = it.cutTail?.droppedBytes ?? 0
        return out
    }

    /// Field by field, so a failure says where without printing 100,000s of entries.
    static func expectSame(_ got: OnePass, _ expected: OnePass, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(got.scans.count == expected.scans.count, sourceLocation: sourceLocation)
        #expect(got.scans.map(\.time) == expected.scans.map(\.time), sourceLocation: sourceLocation)
        let sameScans = got.scans == expected.scans, samePackets = got.packets == expected.packets
        #expect(sameScans, "the reports differ", sourceLocation: sourceLocation)
        #expect(samePackets, "the packets differ", sourceLocation: sourceLocation)
        #expect(got.adErrorTimes == expected.adErrorTimes, sourceLocation: sourceLocation)
        #expect(got.malformed == expected.malformed, sourceLocation: sourceLocation)
        #expect(got.durationMs == expected.durationMs, sourceLocation: sourceLocation)
        #expect(got.droppedTailBytes == expected.droppedTailBytes, sourceLocation: sourceLocation)
    }

    static func decoded(_ capture: BtsnoopCapture) -> OnePass {
        OnePass(scans: capture.scans, adErrorTimes: capture.adErrorTimes, packets: capture.packets, malformed: capture.malformedEvents,
                durationMs: capture.durationMs, droppedTailBytes: capture.droppedTailBytes)
    }

    /// A command first (the time origin, not a report), then `count` events a
    /// millisecond apart: good reports, reports whose AD overruns, and events
    /// whose length byte lies, in a pattern that puts each kind in both halves.
    static func records(_ count: Int) -> [Record] {
        var records: [Record] = [(0, 0, [0x01, 0x03, 0x0C, 0x00])]
        for n in 1...count {
            let event: [UInt8]
            switch n % 7 {
            case 3: event = ReplayTimingTests.badADEvent
            case 5: event = Array(ReplayTimingTests.goodEvent.dropLast())  // length byte says one more
            default: event = ReplayTimingTests.goodEvent
            }
            var varied = event
            if n % 7 != 5 { varied[varied.count - 1] = UInt8(truncatingIfNeeded: 0xA0 + n % 40) }  // the RSSI
            records.append((Int64(n) * 1_000 + 250_000, 1, [0x04] + varied))
        }
        return records
    }

    @Test func aLargeCaptureDecodesAsOnePassWouldWithACutTail() throws {
        var bytes = ReplayTimingTests.capture(datalink: 1002, Self.records(22_000))
        #expect(bytes.count >= CapturePiece.splitBytes)
        bytes += [0, 0, 0, 50, 0, 0, 0, 50, 0, 0]  // a last record cut short
        let expected = try Self.onePass(bytes)
        #expect(expected.scans.count > 15_000)
        #expect(expected.malformed > 3_000)
        #expect(expected.adErrorTimes.count > 3_000)
        #expect(expected.droppedTailBytes == 10)
        #expect(expected.scans.first?.time == 251)
        let capture = try BtsnoopCapture(bytes: bytes, path: "large.btsnoop")
        let got = Self.decoded(capture)
        Self.expectSame(got, expected)
        #expect(capture.packetCount == expected.packets.count)
    }

    @Test func aBtmonCaptureSplitsOnItsRecordsToo() throws {
        // Monitor records: an index-added note first (the time origin), then events.
        let records: [Record] = [(0, 0, [UInt8](repeating: 0, count: 16))]
            + Self.records(22_000).dropFirst().map { ($0.0, 0x0001_0003, Array($0.2.dropFirst())) }
        let bytes = ReplayTimingTests.capture(datalink: 2001, records)
        let capture = try BtsnoopCapture(bytes: bytes, path: "btmon.btsnoop")
        var expected = try Self.onePass(bytes)
        #expect(expected.scans.allSatisfy { $0.controller == nil })
        for n in expected.scans.indices { expected.scans[n].controller = 1 }  // the index in the record flags
        Self.expectSame(Self.decoded(capture), expected)
    }

    /// A record whose H4 type byte is unknown fails the file; with one in each
    /// half, the error is the first one's, as one pass would meet it.
    @Test func theFirstBadRecordOfTheFileIsTheOneReported() throws {
        let good = Self.records(22_000)
        for bad in [[2_000, 20_000], [20_000]] {
            var records = good
            for n in bad { records[n].2[0] = 0x09 }
            let bytes = ReplayTimingTests.capture(datalink: 1002, records)
            var oneError: HCIParseError?
            do { _ = try Self.onePass(bytes) } catch { oneError = error as? HCIParseError }
            let expected = try #require(oneError)
            #expect(throws: expected) { try BtsnoopCapture(bytes: bytes, path: "bad.btsnoop") }
        }
    }

    @Test func aReplayAdvancedInTicksHandsOverEveryReportInOrder() async throws {
        let bytes = ReplayTimingTests.capture(datalink: 1002, Self.records(22_000))
        let expected = try Self.onePass(bytes)
        let provider = BtsnoopReplayProvider(capture: try BtsnoopCapture(bytes: bytes, path: "ticks.btsnoop", keepPackets: false))
        let got = await StreamReplayTests.replay(provider, toMs: provider.spanMs).map(\.scan)
        #expect(got.count == expected.scans.count)
        let same = got == expected.scans
        #expect(same, "the replayed reports differ from the capture's")
        let final = try #require(await provider.finalStatus())
        #expect(final.adErrors == expected.adErrorTimes.count)
        #expect(provider.cutShort == nil)
    }
}
