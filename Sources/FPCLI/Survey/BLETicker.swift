import FPBLE
import FPCore
import Foundation

/// A BLE provider driven on the measurement clock in 100 ms ticks, as
/// `scan`, `scan --proximity` and `regions watch` read it: started (a
/// provider that cannot start is a one-line failure), advanced tick by
/// tick with each tick's reports handed over, and stopped however the run
/// ends, an error or Ctrl-C included, which is then passed on.
struct BLETicker {
    let provider: any RadioProvider
    let clock: any MeasurementClock
    private let sink = SampleSink()

    static let tickMs = 100

    init(provider: any RadioProvider, clock: any MeasurementClock) async throws {
        (self.provider, self.clock) = (provider, clock)
        let context = CaptureContext(clock: clock, level: "-", position: { _ in MapPoint(x: 0, y: 0) })
        let status = await provider.start(context: context, sink: sink)
        guard status.status == .ok else {
            // The socket's own failure has its documented exit (a permission is 81, a missing adapter 80).
            if let hci = provider as? HCIScanProvider, let failure = hci.lastStartFailure {
                throw BLEFailure.failure(failure, device: hci.device)
            }
            throw CommandFailure("BLE: \(status.reason ?? "unavailable")", .hciFailure)
        }
    }

    /// Ticks until `endMs`, calling `tick` with the time and the reports heard since the last tick.
    func run(until endMs: Int, _ tick: (_ ms: Int, _ reports: [BLEScan]) throws -> Void) async throws {
        var t = 0
        do {
            while t < endMs {
                t = min(t + Self.tickMs, endMs)
                try await clock.sleep(untilMs: t)
                try Task.checkCancellation()
                await provider.advance(toMs: t)
                try tick(t, reports())
            }
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    /// The reports waiting in the sink: after `run`, those a live reader flushed at its stop.
    func reports() -> [BLEScan] {
        sink.drain().compactMap { if case .ble(let s) = $0 { s } else { nil } }
    }
}
