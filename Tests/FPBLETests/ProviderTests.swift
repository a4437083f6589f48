import FPBLE
import FPCore
import FPHCI
import FPHex
import Foundation
import Testing

@Suite("BLE providers")
struct ProviderTests {
    static var captures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FPHCITests/Fixtures/captures")
    }

    @Test func btvirtReplayGivesTheIBeaconAsAScan() async throws {
        let capture = try BtsnoopCapture(path: Self.captures.appendingPathComponent("btvirt-vm-monitor.btsnoop").path)
        #expect(capture.datalink == .monitor)
        #expect(capture.scans.count == 1)
        let s = try #require(capture.scans.first)
        #expect(s.address == "00:AA:01:01:00:01")
        #expect(s.rssi == nil)
        #expect(s.controller == 0)
        #expect(s.beacon == Beacon(type: "ibeacon", uuid: "FB0B57A2-8228-44CD-913A-94A122BA1206", major: 1, minor: 53, measuredPower: -66))
        #expect(s.companyId == 0x004C)
    }

    @Test func replayIsPacedByTheClockAndLabelled() async throws {
        let capture = try BtsnoopCapture(path: Self.captures.appendingPathComponent("csacca__horizon-74-at-ble-adv.btsnoop").path)
        #expect(capture.scans.count == 412)
        let provider = BtsnoopReplayProvider(capture: capture)
        let sink = SampleSink()
        let status = await provider.start(context: CaptureContext(clock: VirtualClock(), level: "J1NP", position: { _ in MapPoint(x: 0, y: 0) }), sink: sink)
        #expect(status.replay == true)
        #expect(status.source.hasPrefix("btsnoop:"))
        #expect(status.malformed == 0)
        let half = capture.durationMs / 2
        await provider.advance(toMs: half)
        let first = sink.drain()
        #expect(!first.isEmpty && first.count < 412)
        #expect(first.allSatisfy { $0.time <= half })
        await provider.advance(toMs: capture.durationMs)
        #expect(first.count + sink.drain().count == 412)
    }

    @Test func aHeaderOnlyCaptureIsUnavailableWithTheReason() async throws {
        let header = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x07, 0xD1]  // version 1, datalink 2001
        let capture = try BtsnoopCapture(bytes: header, path: "empty.btsnoop")
        let provider = BtsnoopReplayProvider(capture: capture)
        let status = await provider.start(context: CaptureContext(clock: VirtualClock(), level: "J1NP", position: { _ in MapPoint(x: 0, y: 0) }),
                                          sink: SampleSink())
        #expect(status.status == .unavailable)
        #expect(status.reason == "the capture holds no HCI packets (only its file header)")
        #expect(status.replay == true)
    }

    @Test func brokenFileIsOneLineError() {
        #expect(throws: BtsnoopCapture.LoadError.self) { _ = try BtsnoopCapture(path: "/nonexistent.btsnoop") }
        do {
            _ = try BtsnoopCapture(bytes: Array("btsnoop".utf8), path: "x")
            Issue.record("no error")
        } catch {
            #expect(error.description.contains("truncated"))
        }
    }

    @Test func malformedEventsAreCountedAndSkipped() {
        var decoder = EventDecoder()
        let good = hex("3e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4")
        #expect(decoder.scans(event: good[...], time: 5).first?.rssi == -60)
        #expect(decoder.scans(event: good.dropLast(), time: 6).isEmpty)
        #expect(decoder.scans(event: good[...], time: 7).first?.time == 7)
        #expect(decoder.malformed == 1)
    }

    @Test func badADKeepsTheReportRaw() {
        var decoder = EventDecoder()
        // Report with AD "05 09 41" (structure overruns its data).
        let event = hex("3e0f0201000001020304050603050941b0")
        let s = decoder.scans(event: event[...], time: 0)
        #expect(s.first?.rssi == -80)
        #expect(s.first?.data == "050941")
        #expect(s.first?.name == nil)
        #expect(decoder.adErrors == 1)
    }
}

func hex(_ t: String) -> [UInt8] { Hex.bytes(t) ?? [] }
