import FPCore
import Foundation
import Testing
@testable import FPSession

@Suite struct StaticMeasurementTests {
    @Test func collectsEverySampleOnOneClockAndLabelsProviders() async throws {
        let ble = ScriptedBLE(everyMs: 250)
        let clock = VirtualClock(startDate: Date(timeIntervalSince1970: 1_700_000_000))
        let setup = CaptureSetup(providers: [ble, AbsentRadio(radio: .wifi)], device: FixedDevice(), clock: clock,
                                 radios: [.ble, .wifi])
        let plan = StaticMeasurement(level: "J1NP", point: MapPoint(x: 363.4, y: 701.6), durationMs: 5000)
        var ticks = 0
        let doc = try await plan.run(setup) { _ in ticks += 1 }
        #expect(ticks == 50)  // 100 ms ticks
        #expect(doc.bleScans.map(\.time) == Array(stride(from: 250, through: 5000, by: 250)))
        #expect(doc.bleScans.allSatisfy { $0.name == "363,701" })
        #expect(doc.x == 363 && doc.y == 702)  // whole units for the evaluator
        #expect(doc.position == .init(x: 363.4, y: 701.6, rule: "surveyed"))
        #expect(doc.startTime == "2023-11-14T22:13:20.000Z" && doc.endTime == "2023-11-14T22:13:25.000Z")
        #expect(doc.durationMs == 5000 && doc.clock == "virtual")
        #expect(doc.providers["ble"]?.status == .ok && doc.providers["ble"]?.samples == 20)
        #expect(doc.providers["wifi"]?.status == .unavailable && doc.providers["wifi"]?.reason == "no such hardware")
        #expect(doc.providers["cell"]?.status == .disabled)
        #expect(doc.collectBluetoothData && doc.collectWifiData && !doc.collectBtsData)
        #expect(doc.batteryLevel == 0.5 && doc.hardware == "Test Box" && doc.deviceId == "dev-1")
        #expect(ble.stopped)
    }

    @Test func cancellationReturnsNothing() async throws {
        let ble = ScriptedBLE(everyMs: 100)
        let setup = CaptureSetup(providers: [ble], device: FixedDevice(), clock: MonotonicClock(), radios: [.ble])
        let plan = StaticMeasurement(level: "J1NP", point: MapPoint(x: 0, y: 0), durationMs: 60_000)
        // Cancelled mid-measurement, from inside it: the test's own task may
        // wait seconds for a thread while other suites compute.
        let canceller = Canceller()
        ble.onAdvance = { canceller.cancel() }
        let task = Task { try await plan.run(setup) }
        canceller.set(task)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ble.stopped)
    }
}

@Suite struct WalkTests {
    // An L-shaped route: 100 units east, then 100 units south, at 50 units/s (J scale, 1 m/s).
    let route = Route(waypoints: [MapPoint(x: 0, y: 0), MapPoint(x: 100, y: 0), MapPoint(x: 100, y: 100)])!

    func walk(correction: Int = 0) -> Walk {
        Walk(level: "J1NP", scenarioId: "L", route: route, pace: WalkPace(correction: correction), scale: .jBuilding,
             sessionId: "s-1")
    }

    @Test func durationAndWindows() {
        #expect(walk().durationMs == 4000)
        #expect(walk().windows == [0..<2000, 2000..<4000])
        // At 0.5 m/s the route takes 8 s; at 1.5 m/s 2.667 s, and the 667 ms tail is too short to keep.
        #expect(walk(correction: -10).windows.count == 4)
        #expect(walk(correction: 10).durationMs == 2667)
        #expect(walk(correction: 10).windows == [0..<2000])
    }

    @Test(arguments: [(0, 0.0, 0.0), (1000, 50.0, 0.0), (2000, 100.0, 0.0), (3000, 100.0, 50.0), (9000, 100.0, 100.0)])
    func positionsAtKnownTimes(ms: Int, x: Double, y: Double) {
        let p = walk().position(atMs: ms)
        #expect(abs(p.x - x) < 1e-9 && abs(p.y - y) < 1e-9)
    }

    @Test func cutsDocumentsWithInterpolatedPositionsAndRelativeTimes() async throws {
        let ble = ScriptedBLE(everyMs: 500)
        let clock = VirtualClock(startDate: Date(timeIntervalSince1970: 1_700_000_000))
        let setup = CaptureSetup(providers: [ble], device: FixedDevice(), clock: clock, radios: [.ble])
        let docs = try await walk().run(setup)
        #expect(docs.count == 2)
        #expect(docs.map(\.seq) == [1, 2])
        #expect(docs.allSatisfy { $0.sessionId == "s-1" && $0.scenarioId == "L" && $0.mode == .walk })
        // Window midpoints: 1000 ms → (50, 0); 3000 ms → (100, 50).
        #expect(docs[0].position == .init(x: 50, y: 0, rule: Walk.positionRule, atMs: 1000))
        #expect(docs[1].position == .init(x: 100, y: 50, rule: Walk.positionRule, atMs: 3000))
        #expect(docs[1].x == 100 && docs[1].y == 50)
        // Samples at 500…1500 fall in window 1, 2000…4000 in window 2 (the walk's end is inclusive),
        // with times relative to their window's start.
        #expect(docs[0].bleScans.map(\.time) == [500, 1000, 1500])
        #expect(docs[1].bleScans.map(\.time) == [0, 500, 1000, 1500, 2000])
        // Providers were told where the walker was: (25, 0) at 500 ms, (100, 75) at 3500 ms.
        #expect(docs[0].bleScans[0].name == "25,0")
        #expect(docs[1].bleScans[3].name == "100,75")
        #expect(docs[1].window == .init(startMs: 2000, endMs: 4000, start: "2023-11-14T22:13:22.000Z",
                                        end: "2023-11-14T22:13:24.000Z"))
        #expect(docs[0].providers["ble"]?.samples == 3)
    }
}

/// Cancels a task from wherever `cancel` is called, even before the task is handed over.
final class Canceller: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<MeasurementDocument, any Error>?
    private var asked = false

    func set(_ task: Task<MeasurementDocument, any Error>) {
        let cancelNow = lock.withLock { self.task = task; return asked }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock { asked = true; return self.task }
        task?.cancel()
    }
}
