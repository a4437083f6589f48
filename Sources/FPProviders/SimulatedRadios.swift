import FPCore
import Foundation

/// The simulated providers for a floor, one per requested radio, in `Radio.allCases` order.
package enum SimulatedRadios {
    package static func providers(environment: RadioEnvironment, seed: UInt64, radios: Set<Radio>) -> [any RadioProvider] {
        Radio.allCases.filter { radios.contains($0) }.map { radio -> any RadioProvider in
            switch radio {
            case .ble: SimulatedBLEProvider(environment: environment, seed: seed)
            case .wifi: SimulatedWiFiProvider(environment: environment, seed: seed)
            case .cell: SimulatedCellProvider(environment: environment, seed: seed)
            case .location: SimulatedLocationProvider(environment: environment, seed: seed)
            }
        }
    }
}

package typealias SimulatedBLEProvider = SimulatedProvider<BLESimulation>
package typealias SimulatedWiFiProvider = SimulatedProvider<WiFiSimulation>
package typealias SimulatedCellProvider = SimulatedProvider<CellSimulation>
package typealias SimulatedLocationProvider = SimulatedProvider<LocationSimulation>

/// One radio's simulation: deterministic state that turns time and the
/// receiver's position into samples. Usable without a provider (it is synchronous).
package protocol RadioSimulation: Sendable {
    static var radio: Radio { get }
    init(environment: RadioEnvironment, seed: UInt64)
    /// Why the environment cannot drive this radio, if it cannot.
    var unavailableReason: String? { get }
    /// Appends, in time order, every sample due after the previous call's `ms` up to and including `ms`.
    /// Each transmitter draws from its own random stream in its own time order, so how
    /// the time is cut into calls never changes the samples.
    mutating func advance(toMs ms: Int, position: (Int) -> MapPoint, into out: inout [Sample])
}

/// A `RadioProvider` that runs a `RadioSimulation` on the measurement's clock.
package actor SimulatedProvider<Simulation: RadioSimulation>: RadioProvider {
    package nonisolated let radio: Radio
    package nonisolated let environment: RadioEnvironment
    package nonisolated let seed: UInt64
    private var simulation: Simulation?
    private var context: CaptureContext?
    private var sink: SampleSink?
    private var lastMs = 0

    package init(environment: RadioEnvironment, seed: UInt64) {
        radio = Simulation.radio
        self.environment = environment
        self.seed = seed
    }

    package func start(context: CaptureContext, sink: SampleSink) -> ProviderStatus {
        let source = "simulated:\(environment.source)"
        func unavailable(_ reason: String) -> ProviderStatus {
            ProviderStatus(status: .unavailable, source: source, simulated: true, reason: reason)
        }
        // Simulating one floor's transmitters at another floor's coordinates would be silently wrong data.
        guard context.level == environment.map else {
            return unavailable("environment \(environment.source) simulates map \(environment.map), not \(context.level)")
        }
        // A fresh simulation per start, seeded by the seed and the starting point: measurements at
        // different points get independent noise and advertising phases (one shared stream would
        // make every point's noise identical, too kind to a fingerprinting evaluation), while the
        // same seed at the same point still repeats exactly.
        let origin = context.position(0)
        var mixer = SeededRandom(seed: seed).fork("\(context.level)@\(origin.x.bitPattern),\(origin.y.bitPattern)")
        let simulation = Simulation(environment: environment, seed: mixer.next())
        if let reason = simulation.unavailableReason { return unavailable(reason) }
        self.simulation = simulation
        self.context = context
        self.sink = sink
        lastMs = 0
        var status = ProviderStatus(status: .ok, source: source, simulated: true)
        status.seed = seed
        status.model = environment.propagation.realism == nil ? "ideal" : "realistic"
        return status
    }

    package func advance(toMs ms: Int) {
        guard ms > lastMs, let context, let sink, simulation != nil else { return }
        var out: [Sample] = []
        simulation?.advance(toMs: ms, position: context.position, into: &out)
        lastMs = ms
        if !out.isEmpty { sink.emit(contentsOf: out) }
    }

    package func stop() {
        simulation = nil
        context = nil
        sink = nil
    }
}

/// Receiver-side signal level at a map point, by the environment's propagation law.
private struct Channel: Sendable {
    let propagation: RadioEnvironment.Propagation
    let metersPerUnit: Double
    let map: String
    let run: Realism.Run?

    init(_ environment: RadioEnvironment) {
        propagation = environment.propagation
        metersPerUnit = environment.scale.metersPerUnit
        map = environment.map
        run = environment.propagation.realism.map(Realism.Run.init)
    }

    /// The building's lasting shadowing of one transmitter, where the environment is realistic.
    func field(_ transmitter: String) -> Realism.Field? {
        propagation.realism.map { Realism.Field(map: map, transmitter: transmitter, realism: $0) }
    }

    /// dB the field and the run's device add at a receiver point.
    func lasting(_ field: Realism.Field?, at p: MapPoint) -> Double {
        guard let field, let run else { return 0 }
        return field.value(xM: p.x * metersPerUnit, yM: p.y * metersPerUnit) + run.deviceOffset
    }

    /// The law's level, less the walls between where the environment is realistic.
    func meanRSSI(at1m: Double, from transmitter: MapPoint, to receiver: MapPoint) -> Double {
        propagation.meanRSSI(at1m: at1m, distanceM: transmitter.distance(to: receiver) * metersPerUnit)
            - (propagation.realism?.wallLoss(from: transmitter, to: receiver) ?? 0)
    }

    /// The reported (whole dBm) level, or nil when below the receiver's sensitivity.
    func heard(_ dbm: Double) -> Int? {
        let rounded = dbm.rounded()
        return rounded >= propagation.sensitivityDbm ? Int(rounded) : nil
    }
}

/// BLE advertising: each transmitter sends every advInterval + advDelay (0–10 ms,
/// as the Core spec randomises it), from a random phase; each advert heard is one report.
package struct BLESimulation: RadioSimulation {
    package static var radio: Radio { .ble }
    package var unavailableReason: String? { nil }

    struct Transmitter: Sendable {
        let template: BLEScan
        let position: MapPoint
        let at1m: Double
        let field: Realism.Field?
        let intervalMs: Int
        var random: SeededRandom
        var nextMs: Int
    }

    private let channel: Channel
    private var transmitters: [Transmitter]
    /// Adverts heard in this call, as small records: sorting them is cheap, sorting BLEScans is not.
    /// Reused between calls so a tick allocates nothing once warmed up.
    private var batch: [(time: Int, index: Int, rssi: Int)] = []

    package init(environment: RadioEnvironment, seed: UInt64) {
        let channel = Channel(environment)
        self.channel = channel
        let base = SeededRandom(seed: seed).fork("ble")
        transmitters = environment.ble.compactMap { t in
            var random = base.fork(t.address)
            let phase = Int(random.next() % UInt64(t.intervalMs))
            let template = BLEScan(address: t.address, addressType: t.addressType, rssi: nil, time: 0, name: t.name,
                                   eventType: t.eventType, beacon: t.beacon)
            // A realistic run: this beacon has drifted since the survey, or is dead.
            var drift = 0.0
            if let run = channel.run {
                guard let d = run.beacon(t.address) else { return nil }
                drift = d
            }
            return Transmitter(template: template, position: t.position, at1m: Double(t.measuredPower) + drift,
                               field: channel.field(t.address), intervalMs: t.intervalMs, random: random, nextMs: 1 + phase)
        }
    }

    package mutating func advance(toMs ms: Int, position: (Int) -> MapPoint, into out: inout [Sample]) {
        let sigma = channel.propagation.shadowingSigmaDb
        batch.removeAll(keepingCapacity: true)
        for i in transmitters.indices {
            while transmitters[i].nextMs <= ms {
                let t = transmitters[i].nextMs
                let here = position(t)
                let mean = channel.meanRSSI(at1m: transmitters[i].at1m, from: transmitters[i].position, to: here)
                    + channel.lasting(transmitters[i].field, at: here)
                // Draw noise and delay even for adverts not heard, so sensitivity never shifts the stream.
                let noise = sigma * transmitters[i].random.nextGaussian()
                let advDelay = Int(transmitters[i].random.next() % 11)
                transmitters[i].nextMs += transmitters[i].intervalMs + advDelay
                if let rssi = channel.heard(mean + noise) { batch.append((t, i, rssi)) }
            }
        }
        batch.sort { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }
        out.reserveCapacity(out.count + batch.count)
        for entry in batch {
            var scan = transmitters[entry.index].template
            scan.rssi = entry.rssi
            scan.time = entry.time
            out.append(.ble(scan))
        }
    }
}

/// Wi-Fi: a full scan every 3 s (the first 1.5 s in, as a scan takes time);
/// every BSS heard appears once per scan, stamped with the scan time.
package struct WiFiSimulation: RadioSimulation {
    package static var radio: Radio { .wifi }
    package static let firstScanMs = 1500
    package static let scanIntervalMs = 3000
    package var unavailableReason: String? { nil }

    struct AccessPoint: Sendable {
        let template: WiFiScan
        let position: MapPoint
        let at1m: Double
        let field: Realism.Field?
        var random: SeededRandom
    }

    private let channel: Channel
    private var accessPoints: [AccessPoint]
    private var nextScanMs = WiFiSimulation.firstScanMs

    package init(environment: RadioEnvironment, seed: UInt64) {
        let channel = Channel(environment)
        self.channel = channel
        let base = SeededRandom(seed: seed).fork("wifi")
        accessPoints = environment.wifi.map { ap in
            AccessPoint(template: WiFiScan(mac: ap.mac, ssid: ap.ssid, rssi: 0, time: 0, frequency: ap.frequency,
                                           channel: ap.channel),
                        position: ap.position, at1m: ap.rssiAt1m, field: channel.field(ap.mac), random: base.fork(ap.mac))
        }
    }

    package mutating func advance(toMs ms: Int, position: (Int) -> MapPoint, into out: inout [Sample]) {
        let sigma = channel.propagation.shadowingSigmaDb
        while nextScanMs <= ms {
            let t = nextScanMs
            let here = position(t)
            for i in accessPoints.indices {
                let mean = channel.meanRSSI(at1m: accessPoints[i].at1m, from: accessPoints[i].position, to: here)
                    + channel.lasting(accessPoints[i].field, at: here)
                let noise = sigma * accessPoints[i].random.nextGaussian()
                if let rssi = channel.heard(mean + noise) {
                    var scan = accessPoints[i].template
                    scan.rssi = rssi
                    scan.time = t
                    out.append(.wifi(scan))
                }
            }
            nextScanMs += WiFiSimulation.scanIntervalMs
        }
    }
}

/// Cellular: the serving cell first, then neighbours, every second. Cell levels
/// drift slowly (first-order autoregressive noise with a 10 s correlation time)
/// instead of jumping per report, as a modem's averaged measurements do.
package struct CellSimulation: RadioSimulation {
    package static var radio: Radio { .cell }
    package static let intervalMs = 1000
    package static let correlationMs = 10_000.0
    package var unavailableReason: String? { nil }

    struct Tower: Sendable {
        let template: CellScan
        let position: MapPoint
        let at1m: Double
        var random: SeededRandom
        var noise: Double?
    }

    private let channel: Channel
    private var towers: [Tower]
    private var nextMs = CellSimulation.intervalMs

    package init(environment: RadioEnvironment, seed: UInt64) {
        channel = Channel(environment)
        let base = SeededRandom(seed: seed).fork("cell")
        let ordered = environment.cells.filter(\.serving) + environment.cells.filter { !$0.serving }
        towers = ordered.map { c in
            Tower(template: CellScan(rssi: nil, time: 0, type: c.type, cid: c.cid, lac: c.lac, psc: c.psc,
                                     mcc: c.mcc, mnc: c.mnc, serving: c.serving),
                  position: c.position, at1m: c.rssiAt1m,
                  random: base.fork("\(c.type)/\(c.mcc)/\(c.mnc)/\(c.lac)/\(c.cid)"))
        }
    }

    package mutating func advance(toMs ms: Int, position: (Int) -> MapPoint, into out: inout [Sample]) {
        let sigma = channel.propagation.shadowingSigmaDb
        let rho = exp(-Double(CellSimulation.intervalMs) / CellSimulation.correlationMs)
        while nextMs <= ms {
            let t = nextMs
            let here = position(t)
            for i in towers.indices {
                let g = towers[i].random.nextGaussian()
                // Stationary AR(1): the noise keeps standard deviation σ at every step.
                let noise = towers[i].noise.map { rho * $0 + (1 - rho * rho).squareRoot() * sigma * g } ?? sigma * g
                towers[i].noise = noise
                let mean = channel.meanRSSI(at1m: towers[i].at1m, from: towers[i].position, to: here)
                if let rssi = channel.heard(mean + noise) {
                    var scan = towers[i].template
                    scan.rssi = rssi
                    scan.time = t
                    out.append(.cell(scan))
                }
            }
            nextMs += CellSimulation.intervalMs
        }
    }
}

/// GNSS: a fix every second at the receiver's map position, moved by Gaussian
/// noise whose RMS horizontal error is the anchor's `accuracyM`.
package struct LocationSimulation: RadioSimulation {
    package static var radio: Radio { .location }
    package static let intervalMs = 1000

    private let geo: RadioEnvironment.GeoAnchor?
    private let scale: MapScale
    private var random: SeededRandom
    private var nextMs = LocationSimulation.intervalMs
    package let unavailableReason: String?

    package init(environment: RadioEnvironment, seed: UInt64) {
        geo = environment.geo
        scale = environment.scale
        random = SeededRandom(seed: seed).fork("location")
        unavailableReason = environment.geo == nil ? "environment \(environment.source) has no geo anchor" : nil
    }

    package mutating func advance(toMs ms: Int, position: (Int) -> MapPoint, into out: inout [Sample]) {
        guard let geo else { return }
        // Per-axis σ = accuracy/√2 makes the RMS of the 2-D error equal to accuracy.
        let sigma = geo.accuracyM / 2.squareRoot()
        while nextMs <= ms {
            let t = nextMs
            let en = geo.eastNorth(of: position(t), scale: scale)
            let east = en.east + sigma * random.nextGaussian()
            let north = en.north + sigma * random.nextGaussian()
            let c = geo.coordinate(east: east, north: north)
            // GNSS vertical error is typically larger than horizontal: σ = accuracy.
            let alt = geo.altM.map { ($0 + geo.accuracyM * random.nextGaussian()) }
            out.append(.geo(GeoFix(lat: roundTo7(c.lat), long: roundTo7(c.long), time: t,
                                   alt: alt.map { ($0 * 10).rounded() / 10 }, accuracy: geo.accuracyM)))
            nextMs += LocationSimulation.intervalMs
        }
    }

    /// 1e-7° is about 1 cm: what receivers print, and tidier documents.
    private func roundTo7(_ degrees: Double) -> Double { (degrees * 1e7).rounded() / 1e7 }
}
