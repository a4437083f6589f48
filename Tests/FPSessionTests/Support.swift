import FPCore
import Foundation

/// A scripted radio: emits one BLE report every `everyMs` carrying the
/// position it was asked about in its address-free fields, so tests can check
/// both timing and where the engine said the surveyor was.
final class ScriptedBLE: RadioProvider, @unchecked Sendable {
    let radio = Radio.ble
    let everyMs: Int
    private let lock = NSLock()
    private var context: CaptureContext?
    private var sink: SampleSink?
    private var last = 0
    private(set) var stopped = false
    var positions: [(Int, MapPoint)] = []
    /// Called (on the engine's own task) each time the engine advances it.
    var onAdvance: @Sendable () -> Void = {}

    init(everyMs: Int) { self.everyMs = everyMs }

    func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        lock.withLock {
            self.context = context
            self.sink = sink
        }
        return ProviderStatus(status: .ok, source: "scripted", simulated: true)
    }

    func advance(toMs ms: Int) async {
        lock.withLock {
            guard let context, let sink else { return }
            var t = (last / everyMs + 1) * everyMs
            while t <= ms {
                let p = context.position(t)
                positions.append((t, p))
                sink.emit(.ble(BLEScan(address: "AA:BB:CC:DD:EE:FF", rssi: -60, time: t, name: "\(Int(p.x)),\(Int(p.y))")))
                t += everyMs
            }
            last = ms
        }
        onAdvance()
    }

    func stop() async { lock.withLock { stopped = true } }
}

/// A radio that is never there.
struct AbsentRadio: RadioProvider {
    let radio: Radio
    func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus {
        ProviderStatus(status: .unavailable, source: "test", reason: "no such hardware")
    }
    func advance(toMs ms: Int) async {}
    func stop() async {}
}

struct FixedDevice: DeviceInfoProvider {
    func snapshot() -> DeviceSnapshot {
        DeviceSnapshot(deviceId: "dev-1", hostname: "host", hardware: "Test Box", osName: "Linux", osId: "Test 1",
                       batteryLevel: 0.5, batteryState: "charging",
                       status: ProviderStatus(status: .ok, source: "test"))
    }
}

/// Motion sensors whose every read returns the next value of a counter (acc.x = 1, 2, …).
final class CountingSensors: MotionSensorReader, @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func read() -> MotionReading {
        let k = lock.withLock { n += 1; return Double(n) }
        return MotionReading(acc: .init(x: k, y: 0, z: 9.81), status: ProviderStatus(status: .ok, source: "test-iio"))
    }
}

/// A real-style provider that starts fine but ends with nothing to show and says why.
struct NoFixRadio: RadioProvider {
    let radio = Radio.location
    func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus { ProviderStatus(status: .ok, source: "gpsd:test") }
    func advance(toMs ms: Int) async {}
    func stop() async {}
    func finalStatus() async -> ProviderStatus? {
        ProviderStatus(status: .unavailable, source: "gpsd:test", reason: "the receiver had no fix during the measurement (gpsd mode 1)")
    }
}
