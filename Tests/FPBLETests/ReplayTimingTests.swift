import FPBLE
import FPCore
import FPHCI
import Testing

/// A replay's time origin, its AD-error count and what it says when cut short.
@Suite("BLE replay timing")
struct ReplayTimingTests {
    /// A legacy LE Advertising Report event (no H4 byte): iBeacon, RSSI −60.
    static let goodEvent = hex("3e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4")
    /// A report whose AD structure "05 09 41" overruns its data, RSSI −80.
    static let badADEvent = hex("3e0f0201000001020304050603050941b0")
    static let t0: Int64 = 0x00E0_3C59_D8F5_A000  // some day in btsnoop's microseconds

    /// A btsnoop file of `records` (time offset in µs, flags, data), with the datalink given.
    static func capture(datalink: UInt32, _ records: [(Int64, UInt32, [UInt8])]) -> [UInt8] {
        var out = Array("btsnoop".utf8) + [0] + be32(1) + be32(datalink)
        for (offset, flags, data) in records {
            let stamp = UInt64(t0 + offset)
            out += be32(UInt32(data.count)) + be32(UInt32(data.count)) + be32(flags) + be32(0)
            out += be32(UInt32(stamp >> 32)) + be32(UInt32(stamp & 0xFFFF_FFFF)) + data
        }
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    @Test func timeZeroIsTheFilesFirstRecordForBtmonAndAndroidCaptures() throws {
        // btmon (2001): an index-added record (opcode 0, not an HCI packet) first, the report 0.5 s later
        let btmon = try BtsnoopCapture(bytes: Self.capture(datalink: 2001, [
            (0, 0x0000_0000, [UInt8](repeating: 0, count: 16)),
            (500_000, 0x0000_0003, Self.goodEvent),
            (800_000, 0x0000_0003, Self.goodEvent),
        ]), path: "btmon.btsnoop")
        // Android (1002): a command (Reset) first, the report 0.5 s later
        let android = try BtsnoopCapture(bytes: Self.capture(datalink: 1002, [
            (0, 0, [0x01, 0x03, 0x0C, 0x00]),
            (500_000, 1, [0x04] + Self.goodEvent),
            (800_000, 1, [0x04] + Self.goodEvent),
        ]), path: "android.btsnoop")
        #expect(btmon.scans.map(\.time) == [500, 800])
        #expect(android.scans.map(\.time) == [500, 800])
        #expect(btmon.durationMs == 800)
        #expect(android.durationMs == 800)
    }

    @Test func aCutReplaySaysHowManyReportsItLeftOutAndCountsADErrorsOfWhatItReplayed() async throws {
        let capture = try BtsnoopCapture(bytes: Self.capture(datalink: 1002, [
            (0, 0, [0x01, 0x03, 0x0C, 0x00]),
            (100_000, 1, [0x04] + Self.badADEvent),
            (200_000, 1, [0x04] + Self.goodEvent),
            (9_000_000, 1, [0x04] + Self.badADEvent),
        ]), path: "cut.btsnoop")
        #expect(capture.adErrorTimes == [100, 9000])
        let provider = BtsnoopReplayProvider(capture: capture)
        let sink = SampleSink()
        _ = await provider.start(context: CaptureContext(clock: VirtualClock(), level: "J1NP", position: { _ in MapPoint(x: 0, y: 0) }),
                                 sink: sink)
        await provider.advance(toMs: 5000)
        #expect(sink.drain().count == 2)
        let cut = try #require(await provider.finalStatus())
        #expect(cut.status == .ok)
        #expect(cut.adErrors == 1)
        #expect(cut.reason == "replayed 2 of the capture's 3 advertising reports: the measurement ended before the report at 9.0 s (the capture runs 9.0 s)")
        await provider.advance(toMs: provider.spanMs)
        let whole = try #require(await provider.finalStatus())
        #expect(whole.adErrors == 2)
        #expect(whole.reason == nil)
    }

    /// A replay delivers its reports as the prefix of its array: a listing
    /// sink (the engine's) keeps them as one list, any other hands them out
    /// as samples. Either way the capture's reports exactly, in order,
    /// counted live, each once, and the cut note and AD errors as before.
    @Test func aReplayDeliversItsReportsWholeToAListingSinkAndAsSamplesToAnother() async throws {
        var records: [(Int64, UInt32, [UInt8])] = [(0, 0, [0x01, 0x03, 0x0C, 0x00])]
        for k in 1...40 {
            let event: [UInt8] = k % 3 == 0 ? Self.badADEvent : Self.goodEvent
            records.append((Int64(k) * 100_000, 1, [0x04] + event))
        }
        let capture = try BtsnoopCapture(bytes: Self.capture(datalink: 1002, records), path: "ticks.btsnoop")
        #expect(capture.scans.count == 40)
        for listing in [true, false] {
            let provider = BtsnoopReplayProvider(capture: capture)
            let sink = SampleSink(listingBLE: listing)
            _ = await provider.start(context: CaptureContext(clock: VirtualClock(), level: "J1NP", position: { _ in MapPoint(x: 0, y: 0) }),
                                     sink: sink)
            var delivered: [BLEScan] = [], shown: [Sample] = [], shownFrom = 0
            for ms in stride(from: 700, through: 2100, by: 700) {
                await provider.advance(toMs: ms)
                let drained = sink.drain().map { sample -> BLEScan? in if case .ble(let s) = sample { s } else { nil } }
                if listing { #expect(drained.isEmpty) }
                delivered += drained.compactMap { $0 }
                shown += sink.listedBLE(from: &shownFrom)
                #expect(sink.count(.ble) == ms / 100)
            }
            let cut = try #require(await provider.finalStatus())
            #expect(cut.reason == "replayed 21 of the capture's 40 advertising reports: the measurement ended before the report at 2.2 s (the capture runs 4.0 s)")
            #expect(cut.adErrors == 7)
            await provider.advance(toMs: provider.spanMs)
            delivered += sink.drain().compactMap { sample -> BLEScan? in if case .ble(let s) = sample { s } else { nil } }
            if listing {
                shown += sink.listedBLE(from: &shownFrom)
                delivered = sink.takeBLEList()
                #expect(shown.count == 40 && shown == delivered.map(Sample.ble))
                #expect(sink.takeBLEList().isEmpty)
            }
            #expect(delivered == capture.scans, "listing: \(listing)")
        }
    }
}
