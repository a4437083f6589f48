import FPCore
import Foundation

/// What the engine measures with: providers for the enabled radios, the
/// device, one clock, and the labels written into every document.
package struct CaptureSetup: Sendable {
    package var providers: [any RadioProvider]
    package var device: any DeviceInfoProvider
    package var clock: any MeasurementClock
    /// Radios the user turned on (their providers are in `providers`).
    package var radios: Set<Radio>
    /// How often providers are advanced and progress reported.
    package var tickMs: Int
    package var generator: String
    /// Motion sensors, read at the end of each document's window; nil = not read (recorded as unavailable).
    package var sensors: (any MotionSensorReader)?
    /// Why `sensors` is nil, for the document's `providers.sensors`.
    package var sensorsNotRead = "motion sensors are not read with simulated radios"
    /// Where BLE providers keep raw HCI packets (`--keep-raw`); nil = not kept.
    package var rawHCI: RawHCILog?
    /// Each tick's new samples as they come, for a live view (`fprint
    /// measure`'s table of transmitters heard); nil = none is kept.
    package var onSamples: (@Sendable ([Sample]) -> Void)?

    package init(providers: [any RadioProvider], device: any DeviceInfoProvider, clock: any MeasurementClock,
                radios: Set<Radio>, tickMs: Int = 100, generator: String = "fprint",
                sensors: (any MotionSensorReader)? = nil) {
        self.providers = providers
        self.device = device
        self.clock = clock
        self.radios = radios
        self.tickMs = tickMs
        self.generator = generator
        self.sensors = sensors
    }
}

/// Live state for progress displays.
package struct CaptureProgress: Sendable, Equatable {
    package var elapsedMs: Int
    package var totalMs: Int
    package var counts: [Radio: Int]
    /// Walks: where the surveyor should be now, the next waypoint, documents cut so far.
    package var target: MapPoint?
    package var nextWaypoint: Int?
    package var documentsCut: Int
}

/// Runs providers on one clock and collects their samples. Cancellation
/// (Ctrl-C) throws `CancellationError` and returns nothing, so callers store nothing.
struct Capture {
    let setup: CaptureSetup
    let level: String
    let position: @Sendable (Int) -> MapPoint

    struct Result {
        var samples: SampleLists
        var statuses: [Radio: ProviderStatus]
        /// Motion sensor readings taken at the requested times (ms), in order.
        var motion: [(atMs: Int, reading: MotionReading)] = []

        /// The reading taken at `ms` (a window's end), if sensors were read.
        func motion(atMs ms: Int) -> MotionReading? { motion.last { $0.atMs <= ms }?.reading }
    }

    /// `readSensorsAtMs`: the clock times at which the motion sensors are read
    /// (each document's end) — read live, because their value at that moment is the datum.
    func run(durationMs: Int, readSensorsAtMs: [Int] = [], onTick: (Int, SampleSink) -> Void) async throws -> Result {
        // BLE delivered as a list (a replay's) stays one list to the document.
        let sink = SampleSink(listingBLE: true)
        let context = CaptureContext(clock: setup.clock, level: level, rawHCI: setup.rawHCI, position: position)
        var statuses: [Radio: ProviderStatus] = [:]
        var running: [any RadioProvider] = []
        for provider in setup.providers {
            let status = await provider.start(context: context, sink: sink)
            statuses[provider.radio] = status
            if status.status == .ok { running.append(provider) }
        }
        // Each tick's samples as drained, joined once at the end: one array
        // grown tick by tick would copy a long replay's samples over and over.
        var drained: [[Sample]] = []
        var motion: [(atMs: Int, reading: MotionReading)] = []
        var pendingReads = readSensorsAtMs.sorted()[...]
        var listedShown = 0
        do {
            var t = 0
            while t < durationMs {
                t = min(t + setup.tickMs, durationMs)
                try await setup.clock.sleep(untilMs: t)
                try Task.checkCancellation()
                for provider in running { await provider.advance(toMs: t) }
                let batch = sink.drain()
                if let onSamples = setup.onSamples {
                    let seen = batch + sink.listedBLE(from: &listedShown)
                    if !seen.isEmpty { onSamples(seen) }
                }
                if !batch.isEmpty { drained.append(batch) }
                if let sensors = setup.sensors {
                    while let next = pendingReads.first, next <= t {
                        pendingReads.removeFirst()
                        motion.append((next, sensors.read()))
                    }
                }
                onTick(t, sink)
            }
        } catch {
            for provider in running { await provider.stop() }
            throw error is CancellationError ? CancellationError() : error
        }
        for provider in running {
            await provider.stop()
            if let final = await provider.finalStatus() { statuses[provider.radio] = final }
        }
        // Providers stopping may flush what they still held. Real providers may
        // date an observation before ms 0 (a cached Wi-Fi entry): not this measurement's.
        drained.append(sink.drain())
        let samples = SampleLists(taking: &drained, listed: sink.takeBLEList(), within: 0...durationMs)
        return Result(samples: samples, statuses: statuses, motion: motion)
    }
}

/// Assembles documents from samples; shared by static measurements and walks.
struct DocumentBuilder {
    let setup: CaptureSetup
    let device: DeviceSnapshot

    func document(level: String, mode: MeasurementDocument.Mode, position: MeasurementDocument.Position,
                  startMs: Int, endMs: Int, samples: consuming SampleLists,
                  statuses: [Radio: ProviderStatus], motion: MotionReading? = nil) -> MeasurementDocument {
        var doc = MeasurementDocument()
        doc.mode = mode
        doc.level = level
        doc.x = Int(position.x.rounded())
        doc.y = Int(position.y.rounded())
        doc.position = position
        let clock = setup.clock
        doc.startTime = ISOTime.string(clock.wallTime(atMs: startMs))
        doc.endTime = ISOTime.string(clock.wallTime(atMs: endMs))
        doc.createdAt = doc.endTime
        doc.durationMs = endMs - startMs
        doc.clock = clock.isVirtual ? "virtual" : "monotonic"
        doc.deviceId = device.deviceId
        doc.hostname = device.hostname
        doc.hardware = device.hardware
        doc.osName = device.osName
        doc.osId = device.osId
        doc.batteryLevel = device.batteryLevel
        doc.batteryState = device.batteryState
        doc.collectBluetoothData = setup.radios.contains(.ble)
        doc.collectWifiData = setup.radios.contains(.wifi)
        doc.collectBtsData = setup.radios.contains(.cell)
        doc.collectGeolocationData = setup.radios.contains(.location)
        // Sample times are relative to this document's own start. The lists
        // are taken as they are (a static measurement's are unique: a
        // replay's 100,000s of entries are neither copied nor moved).
        var samples = samples
        samples.shift(by: startMs)
        doc.bleScans = samples.ble
        doc.wifiScans = samples.wifi
        doc.cellScans = samples.cells
        doc.geolocation = samples.fixes
        let counts: [Radio: Int] = [
            .ble: doc.bleScans.count, .wifi: doc.wifiScans.count,
            .cell: doc.cellScans.count, .location: doc.geolocation.count,
        ]
        for radio in Radio.allCases {
            var status = statuses[radio] ?? .disabled()
            // A source that failed mid-measurement still says what it delivered before.
            if status.status == .ok || counts[radio, default: 0] > 0 { status.samples = counts[radio] }
            doc.providers[radio.rawValue] = status
        }
        doc.providers["device"] = device.status
        if let motion {
            doc.accX = motion.acc?.x; doc.accY = motion.acc?.y; doc.accZ = motion.acc?.z
            doc.gyroX = motion.gyro?.x; doc.gyroY = motion.gyro?.y; doc.gyroZ = motion.gyro?.z
            doc.magX = motion.mag?.x; doc.magY = motion.mag?.y; doc.magZ = motion.mag?.z
            doc.providers["sensors"] = motion.status
        } else {
            doc.providers["sensors"] = ProviderStatus(
                status: .unavailable, source: "none",
                reason: setup.sensors == nil ? setup.sensorsNotRead
                    : "the measurement ended before the sensors were read")
        }
        doc.generator = setup.generator
        return doc
    }
}

/// Static measurement at one surveyed point (DESIGN.md §4: default 20 s, 5–120 s).
package struct StaticMeasurement: Sendable {
    package static let allowedSeconds = 5...120
    package var level: String
    package var point: MapPoint
    package var durationMs: Int

    package init(level: String, point: MapPoint, durationMs: Int) {
        self.level = level
        self.point = point
        self.durationMs = durationMs
    }

    package func run(_ setup: CaptureSetup, progress: @escaping (CaptureProgress) -> Void = { _ in })
        async throws -> MeasurementDocument
    {
        let device = setup.device.snapshot()
        let point = self.point
        let capture = Capture(setup: setup, level: level, position: { _ in point })
        let total = durationMs
        var result = try await capture.run(durationMs: durationMs, readSensorsAtMs: [durationMs]) { t, sink in
            progress(CaptureProgress(elapsedMs: t, totalMs: total, counts: Self.counts(sink), target: nil,
                                     nextWaypoint: nil, documentsCut: 0))
        }
        // Handed over, not shared: the document takes the unique lists.
        let samples = result.samples
        result.samples = SampleLists()
        let builder = DocumentBuilder(setup: setup, device: device)
        return builder.document(
            level: level, mode: .static, position: .init(x: point.x, y: point.y, rule: "surveyed"),
            startMs: 0, endMs: durationMs, samples: consume samples, statuses: result.statuses,
            motion: result.motion(atMs: durationMs))
    }

    static func counts(_ sink: SampleSink) -> [Radio: Int] { sink.counts() }
}
