import FPCore
import Foundation
import Testing
@testable import FPSession

@Suite struct SensorsAndFinalStatusTests {
    @Test func staticMeasurementReadsSensorsOnceAtTheEnd() async throws {
        let sensors = CountingSensors()
        let setup = CaptureSetup(providers: [ScriptedBLE(everyMs: 500)], device: FixedDevice(), clock: VirtualClock(),
                                 radios: [.ble], sensors: sensors)
        let doc = try await StaticMeasurement(level: "J1NP", point: MapPoint(x: 1, y: 1), durationMs: 5000).run(setup)
        #expect(doc.accX == 1 && doc.accZ == 9.81 && doc.gyroX == nil && doc.magZ == nil)
        #expect(doc.providers["sensors"] == ProviderStatus(status: .ok, source: "test-iio"))
    }

    @Test func walkReadsSensorsAtEachWindowEnd() async throws {
        let route = Route(waypoints: [MapPoint(x: 0, y: 0), MapPoint(x: 300, y: 0)])!  // 6 s at 50 units/s
        let walk = Walk(level: "J1NP", scenarioId: "S", route: route, pace: WalkPace(correction: 0), scale: .jBuilding,
                        sessionId: "s")
        let setup = CaptureSetup(providers: [], device: FixedDevice(), clock: VirtualClock(), radios: [.ble],
                                 sensors: CountingSensors())
        let docs = try await walk.run(setup)
        #expect(docs.map(\.accX) == [1, 2, 3])
    }

    @Test func withoutSensorsTheReasonIsRecorded() async throws {
        let setup = CaptureSetup(providers: [], device: FixedDevice(), clock: VirtualClock(), radios: [.ble])
        let doc = try await StaticMeasurement(level: "J1NP", point: MapPoint(x: 1, y: 1), durationMs: 5000).run(setup)
        #expect(doc.accX == nil && doc.providers["sensors"]?.status == .unavailable)
    }

    @Test func aProvidersFinalWordReplacesItsStartStatus() async throws {
        let setup = CaptureSetup(providers: [NoFixRadio()], device: FixedDevice(), clock: VirtualClock(), radios: [.location])
        let doc = try await StaticMeasurement(level: "J1NP", point: MapPoint(x: 1, y: 1), durationMs: 5000).run(setup)
        #expect(doc.providers["location"]?.status == .unavailable)
        #expect(doc.providers["location"]?.reason == "the receiver had no fix during the measurement (gpsd mode 1)")
    }
}
