import FPBLE
import FPCore
import FPHCI
import FPTransport
import Foundation
import Testing

/// A scan that cannot start says why in the socket's own terms, so the
/// command can give that failure's exit code (a permission is 81, not the
/// 84 of a failing controller).
@Suite struct StartFailureTests {
    @Test func aRefusedWriteIsKeptAsThePermissionItWas() async {
        let adapter = FakeAdapter(live: [])
        adapter.refusesWrites = .permission("write to hci0")
        let provider = HCIScanProvider(device: 0, exclusive: false, parameters: .init(active: true), socket: adapter,
                                       retryPauseMs: 20)
        let context = CaptureContext(clock: MonotonicClock(), level: "-", position: { _ in MapPoint(x: 0, y: 0) })
        let status = await provider.start(context: context, sink: SampleSink())
        #expect(status.status == .unavailable && status.reason?.contains("permission denied") == true, "\(status)")
        guard case .permission? = provider.lastStartFailure else {
            Issue.record("the start's failure is kept as the socket's permission error: \(String(describing: provider.lastStartFailure))")
            return
        }
    }

    @Test func aStartThatWorkedKeepsNoFailure() async {
        let provider = HCIScanProvider(device: 0, exclusive: false, parameters: .init(active: true), socket: FakeAdapter(live: []),
                                       retryPauseMs: 20)
        let context = CaptureContext(clock: MonotonicClock(), level: "-", position: { _ in MapPoint(x: 0, y: 0) })
        #expect(await provider.start(context: context, sink: SampleSink()).status == .ok)
        #expect(provider.lastStartFailure == nil)
        await provider.stop()
    }
}
