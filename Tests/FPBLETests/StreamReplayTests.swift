import FPBLE
import FPCore
import FPHCI
import FPTestSupport
import Foundation
import Testing

/// `fprint track`'s replay decodes a capture as it plays, a piece of the file
/// at a time: it must give what the whole-file replay gives, wherever the
/// pieces cut the records.
@Suite("BLE replay streamed")
struct StreamReplayTests {
    static let realCaptures = ["btvirt-vm-monitor", "csacca__horizon-74-at-ble-adv", "dandwhelan__fossibot-bluetooth-2-adv",
                               "dandwhelan__fossibot-bluetooth-adv", "mchwalisz__lightsapp-cli-adv", "whoisbe__pongbot-mcp-adv"]

    static func context() -> CaptureContext {
        CaptureContext(clock: VirtualClock(), level: "J1NP", position: { _ in MapPoint(x: 0, y: 0) })
    }

    /// Every report a provider gives when advanced second by second to `endMs`, each with the time of the advance that gave it.
    static func replay(_ provider: any RadioProvider, toMs endMs: Int) async -> [(advance: Int, scan: BLEScan)] {
        let sink = SampleSink()
        let status = await provider.start(context: context(), sink: sink)
        #expect(status.status == .ok)
        var out: [(Int, BLEScan)] = []
        var ms = 0
        while true {
            await provider.advance(toMs: ms)
            for case .ble(let scan) in sink.drain() { out.append((ms, scan)) }
            if ms >= endMs { break }
            ms = min(ms + 1000, endMs)
        }
        return out
    }

    @Test(arguments: realCaptures)
    func aStreamedReplayGivesTheWholeFileReplaysReportsAtTheSameAdvances(name: String) async throws {
        let path = ProviderTests.captures.appendingPathComponent(name + ".btsnoop").path
        let whole = BtsnoopReplayProvider(capture: try BtsnoopCapture(path: path, keepPackets: false))
        let expected = await Self.replay(whole, toMs: whole.spanMs)
        #expect(!expected.isEmpty)
        // Pieces smaller than a record, of a few records, and the default.
        for pieceSize in [7, 300, 1 << 20] {
            let streamed = try BtsnoopStreamProvider(path: path, pieceSize: pieceSize)
            #expect(streamed.spanMs == whole.spanMs)
            let got = await Self.replay(streamed, toMs: streamed.spanMs)
            #expect(got.count == expected.count, "piece \(pieceSize)")
            #expect(got.map(\.advance) == expected.map(\.advance), "piece \(pieceSize)")
            #expect(got.map(\.scan) == expected.map(\.scan), "piece \(pieceSize)")
            await streamed.stop()
            let final = await streamed.finalStatus()
            #expect(final?.malformed == whole.capture.malformedEvents)
            #expect(final?.adErrors == whole.capture.adErrorTimes.count)
            #expect(streamed.cutShort == nil)
        }
    }

    @Test func aLastRecordCutShortIsDroppedAsTheWholeFileReadDropsIt() async throws {
        let bytes = ReplayTimingTests.capture(datalink: 1002, [
            (0, 0, [0x01, 0x03, 0x0C, 0x00]),
            (100_000, 1, [0x04] + ReplayTimingTests.goodEvent),
            (200_000, 1, [0x04] + ReplayTimingTests.goodEvent),
        ])
        let file = try temporaryFile(Array(bytes.dropLast(10)))
        let whole = try BtsnoopCapture(path: file, keepPackets: false)
        #expect(whole.droppedTailBytes > 0)
        let streamed = try BtsnoopStreamProvider(path: file, pieceSize: 16)
        #expect(streamed.droppedTailBytes == whole.droppedTailBytes)
        #expect(streamed.packetCount == whole.packetCount)
        let got = await Self.replay(streamed, toMs: 1000)
        #expect(got.map(\.scan) == whole.scans)
    }

    @Test func aRunThatEndsBeforeTheCaptureSaysSo() async throws {
        let file = try temporaryFile(ReplayTimingTests.capture(datalink: 1002, [
            (0, 1, [0x04] + ReplayTimingTests.goodEvent),
            (9_000_000, 1, [0x04] + ReplayTimingTests.goodEvent),
        ]))
        let streamed = try BtsnoopStreamProvider(path: file)
        #expect(await Self.replay(streamed, toMs: 5000).count == 1)
        await streamed.stop()
        let cut = try #require(streamed.cutShort)
        #expect(cut.contains("replayed 1 advertising reports"), "\(cut)")
        #expect(cut.contains("the capture runs 9.0 s"), "\(cut)")
    }

    @Test func whatIsNotACaptureFailsAsTheWholeFileReadFails() throws {
        let notCapture = try temporaryFile(Array("this is not a btsnoop file at all".utf8))
        #expect(throws: BtsnoopCapture.LoadError.self) { try BtsnoopStreamProvider(path: notCapture) }
        do { _ = try BtsnoopStreamProvider(path: notCapture) } catch {
            #expect(error.description.contains("not a usable btsnoop capture"), "\(error.description)")
        }
        // Only a header and a record cut short: no intact record, as the whole read says.
        let noRecord = try temporaryFile(Array(ReplayTimingTests.capture(datalink: 1002, [
            (0, 1, [0x04] + ReplayTimingTests.goodEvent),
        ]).dropLast(5)))
        #expect(throws: BtsnoopCapture.LoadError.self) { try BtsnoopCapture(path: noRecord) }
        #expect(throws: BtsnoopCapture.LoadError.self) { try BtsnoopStreamProvider(path: noRecord) }
        do { _ = try BtsnoopStreamProvider(path: "/nonexistent/x.btsnoop") } catch {
            #expect(error.description.hasPrefix("/nonexistent/x.btsnoop: cannot read"), "\(error.description)")
        }
    }

    /// In the test run's folder, which is removed when the run ends.
    func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let url = try makeTemporaryFolder("stream-replay").appendingPathComponent("capture.btsnoop")
        try Data(bytes).write(to: url)
        return url.path
    }
}
