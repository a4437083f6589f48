import FPCore
import Foundation
import Testing
@testable import FPProviders

@Suite struct SimulatedProviders {
    let allRadios: Set<Radio> = [.ble, .wifi, .cell, .location]

    @Test func statusesAreLabelledSimulated() async {
        let providers = SimulatedRadios.providers(environment: simpleEnvironment(), seed: 1, radios: allRadios)
        #expect(providers.map(\.radio) == [.ble, .wifi, .cell, .location])
        let result = await run(providers, ticks: [1000])
        var expected = ProviderStatus(status: .ok, source: "simulated:T1.json", simulated: true)
        expected.seed = 1  // what repeats the run
        expected.model = "ideal"  // the environment has no realism
        for status in result.statuses { #expect(status == expected) }
        #expect(SimulatedRadios.providers(environment: simpleEnvironment(), seed: 1, radios: [.wifi]).map(\.radio) == [.wifi])
    }

    @Test func anotherMapIsUnavailableAndSilent() async {
        let providers = SimulatedRadios.providers(environment: simpleEnvironment(), seed: 1, radios: allRadios)
        let result = await run(providers, level: "J1NP", ticks: [5000])
        for status in result.statuses {
            #expect(status.status == .unavailable)
            #expect(status.simulated)
            #expect(status.reason == "environment T1.json simulates map T1, not J1NP")
        }
        #expect(result.perTick.joined().isEmpty)
    }

    @Test func noGeoAnchorMeansNoGNSS() async {
        var env = simpleEnvironment()
        env.geo = nil
        let result = await run([SimulatedLocationProvider(environment: env, seed: 1)], ticks: [5000])
        #expect(result.statuses.first?.status == .unavailable)
        #expect(result.statuses.first?.reason == "environment T1.json has no geo anchor")
    }

    @Test func sameSeedSameSamplesOtherSeedOtherSamples() async {
        let env = simpleEnvironment()
        let walk: @Sendable (Int) -> MapPoint = { t in MapPoint(x: Double(t) / 20, y: 30) }
        func samples(_ seed: UInt64) async -> [Sample] {
            let providers = SimulatedRadios.providers(environment: env, seed: seed, radios: allRadios)
            return Array(await run(providers, ticks: ticks(every: 100, until: 10_000), position: walk).perTick.joined())
        }
        let a = await samples(7), b = await samples(7), c = await samples(8)
        #expect(a.count > 150)
        #expect(a == b)
        #expect(a != c)
        // Not only the noise: the advertising phases differ too.
        #expect(a.compactMap(\.bleScan).map(\.time) != c.compactMap(\.bleScan).map(\.time))
    }

    @Test func differentPointsGetIndependentStreams() async {
        let env = simpleEnvironment(sigma: 4)
        func beaconScans(at x: Double) async -> [BLEScan] {
            let result = await run([SimulatedBLEProvider(environment: env, seed: 1)], ticks: [5000]) { _ in MapPoint(x: x, y: 0) }
            return result.perTick.joined().compactMap(\.bleScan).filter { $0.address == "C5:D5:21:51:D7:90" }
        }
        let a = await beaconScans(at: 100), b = await beaconScans(at: 200), a2 = await beaconScans(at: 100)
        #expect(a == a2)
        #expect(a.map(\.time) != b.map(\.time))
        // Residuals from the mean level differ too (2 m and 4 m from the beacon).
        let residualsA = a.compactMap(\.rssi).map { Double($0) + 66 + 20 * log10(2) }
        let residualsB = b.compactMap(\.rssi).map { Double($0) + 66 + 20 * log10(4) }
        #expect(zip(residualsA, residualsB).filter { abs($0 - $1) > 1 }.count > 10)
    }

    @Test func howTimeIsCutDoesNotChangeSamples() async {
        let env = simpleEnvironment()
        let walk: @Sendable (Int) -> MapPoint = { t in MapPoint(x: 100 + Double(t) / 10, y: 0) }
        func samples(_ tickList: [Int]) async -> [Sample] {
            let providers = SimulatedRadios.providers(environment: env, seed: 3, radios: allRadios)
            let delivered = Array(await run(providers, ticks: tickList, position: walk).perTick.joined())
            return Radio.allCases.flatMap { radio in delivered.filter { $0.radio == radio } }
        }
        let fine = await samples(ticks(every: 100, until: 12_000))
        #expect(await samples([12_000]) == fine)
        #expect(await samples([1, 999, 1000, 1000, 4321, 4322, 11_999, 12_000]) == fine)
    }

    @Test func samplesFallInTheAdvancedWindowInOrder() async {
        let env = simpleEnvironment()
        let tickList = [37, 100, 100, 99, 2100, 2150, 5000, 5001, 9000]
        let result = await run(SimulatedRadios.providers(environment: env, seed: 5, radios: allRadios), ticks: tickList)
        var last = 0
        for (ms, delivered) in zip(tickList, result.perTick) {
            for radio in Radio.allCases {
                let times = delivered.filter { $0.radio == radio }.map(\.time)
                #expect(times == times.sorted(), "\(radio) at \(ms)")
                #expect(times.allSatisfy { $0 > last && $0 <= ms }, "\(radio) in (\(last), \(ms)]: \(times)")
            }
            last = max(last, ms)
        }
        // A clock that jumps 2000 ms at once gets the whole 2 s of adverts.
        let jump = result.perTick[4].compactMap(\.bleScan)
        #expect(jump.count >= 25, "\(jump.count) adverts for 1900 ms of two transmitters")

        // Ticking every millisecond puts every sample exactly on a tick: it belongs to that tick.
        let everyMs = await run(SimulatedRadios.providers(environment: env, seed: 5, radios: allRadios),
                                ticks: ticks(every: 1, until: 3000))
        for (i, delivered) in everyMs.perTick.enumerated() {
            #expect(delivered.allSatisfy { $0.time == i + 1 }, "tick \(i + 1): \(delivered.map(\.time))")
        }
        #expect(everyMs.perTick[1499].compactMap(\.wifiScan).count == 2)
        #expect(everyMs.perTick[999].compactMap(\.cellScan).count == 2)
        #expect(everyMs.perTick.joined().compactMap(\.bleScan).count >= 35)
    }

    @Test func bleAdvertisesEveryIntervalPlusAdvDelay() async throws {
        let env = simpleEnvironment()
        let result = await run([SimulatedBLEProvider(environment: env, seed: 11)], ticks: ticks(every: 100, until: 10_000))
        let scans = result.perTick.joined().compactMap(\.bleScan)
        let beacon = scans.filter { $0.address == "C5:D5:21:51:D7:90" }
        let other = scans.filter { $0.address == "11:22:33:44:55:66" }
        // Mean period is interval + 5 ms: 10 s / 105 ms ≈ 95 adverts, 10 s / 255 ms ≈ 39.
        #expect((90...100).contains(beacon.count), "\(beacon.count)")
        #expect((36...41).contains(other.count), "\(other.count)")
        let gaps = zip(beacon.dropFirst(), beacon).map { $0.time - $1.time }
        #expect(gaps.allSatisfy { (100...110).contains($0) }, "\(gaps)")
        #expect(Set(gaps).count > 3, "advDelay varies")
        let first = try #require(beacon.first)
        #expect(first.addressType == "random")
        #expect(first.eventType == "ADV_NONCONN_IND")
        #expect(first.beacon?.major == 1 && first.beacon?.minor == 2 && first.beacon?.measuredPower == -66)
        #expect(first.name == nil)
        #expect(other.first?.eventType == "ADV_IND")
        #expect(other.first?.name == "sensor")
        #expect(other.first?.addressType == "public")
    }

    @Test func wifiScansEveryThreeSeconds() async throws {
        let result = await run([SimulatedWiFiProvider(environment: simpleEnvironment(), seed: 2)],
                               ticks: ticks(every: 100, until: 10_000))
        let scans = result.perTick.joined().compactMap(\.wifiScan)
        #expect(scans.map(\.time) == [1500, 1500, 4500, 4500, 7500, 7500])
        #expect(scans.map(\.mac) == Array(repeating: ["02:00:00:00:00:01", "02:00:00:00:00:02"], count: 3).flatMap { $0 })
        let first = try #require(scans.first)
        #expect(first.ssid == "eduroam" && first.frequency == 2437 && first.channel == 6)
        #expect(scans[1].ssid == "UHK-guest" && scans[1].frequency == 5180 && scans[1].channel == 36)
    }

    @Test func cellsEverySecondServingFirstDriftingSlowly() async throws {
        let env = simpleEnvironment(sigma: 4)
        let result = await run([SimulatedCellProvider(environment: env, seed: 9)], ticks: ticks(every: 1000, until: 600_000))
        let scans = result.perTick.joined().compactMap(\.cellScan)
        #expect(scans.count == 1200)
        #expect(Array(scans.prefix(4).map(\.time)) == [1000, 1000, 2000, 2000])
        let serving = scans.filter { $0.serving == true }
        #expect(serving.count == 600)
        #expect(scans[0] == CellScan(rssi: scans[0].rssi, time: 1000, type: "lte", cid: 1, lac: 7, psc: 11,
                                     mcc: "230", mnc: "01", serving: true))
        #expect(scans[1].cid == 2 && scans[1].serving == false)
        // Mean level follows the law: −25 − 20·log10(200 m) ≈ −71 dBm (the mast is 10000 units away).
        let levels = serving.compactMap(\.rssi).map(Double.init)
        #expect(abs(mean(levels) - (-25 - 20 * log10(200))) < 2, "\(mean(levels))")
        // Slowly varying: consecutive reports differ far less than independent draws would (≈ 4.5 dB).
        let steps = zip(levels.dropFirst(), levels).map { abs($0 - $1) }
        #expect(mean(steps) < 2.5, "\(mean(steps))")
        let spread = (levels.map { ($0 - mean(levels)) * ($0 - mean(levels)) }.reduce(0, +) / Double(levels.count)).squareRoot()
        #expect(spread > 2, "still noisy over minutes: σ ≈ \(spread)")
    }

    @Test func rssiFallsWithDistance() async {
        // One beacon at the origin, σ = 4 dB; receivers at 1, 5 and 20 m (50 units per metre).
        var averages: [Double] = []
        for meters in [1.0, 5, 20] {
            let env = simpleEnvironment(sigma: 4)
            let result = await run([SimulatedBLEProvider(environment: env, seed: 4)], ticks: [20_000]) { _ in
                MapPoint(x: meters * 50, y: 0)
            }
            let levels = result.perTick.joined().compactMap(\.bleScan).filter { $0.address == "C5:D5:21:51:D7:90" }
                .compactMap(\.rssi).map(Double.init)
            let expected = -66 - 20 * log10(meters)
            #expect(abs(mean(levels) - expected) < 1.5, "at \(meters) m: \(mean(levels)) vs \(expected)")
            averages.append(mean(levels))
        }
        #expect(averages == averages.sorted(by: >))
    }

    @Test func weakSignalsAreNotHeard() async {
        // Without noise: −66 dBm at 1 m, −66 − 20·log10(100) = −106 dBm at 100 m: below −100.
        let env = simpleEnvironment(sigma: 0, sensitivity: -100)
        let near = await run([SimulatedBLEProvider(environment: env, seed: 1)], ticks: [2000]) { _ in MapPoint(x: 50, y: 0) }
        let far = await run([SimulatedBLEProvider(environment: env, seed: 1)], ticks: [2000]) { _ in MapPoint(x: 5000, y: 0) }
        let nearBeacon = near.perTick.joined().compactMap(\.bleScan).filter { $0.address == "C5:D5:21:51:D7:90" }
        #expect(!nearBeacon.isEmpty && nearBeacon.allSatisfy { $0.rssi == -66 })
        #expect(far.perTick.joined().compactMap(\.bleScan).filter { $0.address == "C5:D5:21:51:D7:90" }.isEmpty)
    }

    @Test func locationFixesNearTheExpectedCoordinate() async throws {
        // Map point (500, −1000): 10 m right and 20 m up (y grows down) of the origin = 10 m east, 20 m north.
        let geo = RadioEnvironment.GeoAnchor(originLat: 50.2, originLong: 15.8, accuracyM: 5, altM: 240)
        let point = MapPoint(x: 500, y: -1000)
        let en = geo.eastNorth(of: point, scale: .jBuilding)
        #expect(abs(en.east - 10) < 1e-9 && abs(en.north - 20) < 1e-9)
        // Independent check: at 50.2° N a degree of latitude is ≈ 111 229 m, of longitude ≈ 71 397 m.
        let exact = geo.coordinate(of: point, scale: .jBuilding)
        #expect(abs(exact.lat - (50.2 + 20 / 111_229)) < 2e-7)
        #expect(abs(exact.long - (15.8 + 10 / 71_397)) < 2e-7)

        let env = simpleEnvironment(geo: geo)
        let result = await run([SimulatedLocationProvider(environment: env, seed: 6)], ticks: [300_000]) { _ in point }
        let fixes = result.perTick.joined().compactMap(\.geoFix)
        #expect(fixes.count == 300)
        #expect(fixes.map(\.time) == Array(stride(from: 1000, through: 300_000, by: 1000)))
        #expect(fixes.allSatisfy { $0.accuracy == 5 })
        // Averaging 300 fixes with 5 m RMS error leaves well under a metre.
        let metresPerDegLat = 111_229.0, metresPerDegLong = 71_397.0
        let north = (mean(fixes.map(\.lat)) - exact.lat) * metresPerDegLat
        let east = (mean(fixes.map(\.long)) - exact.long) * metresPerDegLong
        #expect((north * north + east * east).squareRoot() < 1, "mean fix \(east) m E, \(north) m N of the truth")
        // The noise is real: RMS horizontal error ≈ accuracy.
        let errors = fixes.map { f -> Double in
            let n = (f.lat - exact.lat) * metresPerDegLat, e = (f.long - exact.long) * metresPerDegLong
            return n * n + e * e
        }
        let rms = mean(errors).squareRoot()
        #expect(rms > 4 && rms < 6, "RMS error \(rms) m")
        #expect(abs(mean(fixes.compactMap(\.alt)) - 240) < 1.5)
    }

    @Test func rotationAndYAxis() {
        let scale = MapScale.jBuilding  // 50 units per metre
        // The map's "up" points east: a point 10 m up the map is 10 m east.
        let rotated = RadioEnvironment.GeoAnchor(originLat: 50, originLong: 15, rotationDeg: 90, accuracyM: 0)
        let up = rotated.eastNorth(of: MapPoint(x: 0, y: -500), scale: scale)
        #expect(abs(up.east - 10) < 1e-9 && abs(up.north) < 1e-9)
        let right = rotated.eastNorth(of: MapPoint(x: 500, y: 0), scale: scale)
        #expect(abs(right.east) < 1e-9 && abs(right.north + 10) < 1e-9)
        // y up, origin elsewhere: (1500, 1500) with origin (1000, 1000) is 10 m east, 10 m north.
        let yUp = RadioEnvironment.GeoAnchor(originLat: 50, originLong: 15, originX: 1000, originY: 1000, yAxisDown: false,
                                             accuracyM: 0)
        let p = yUp.eastNorth(of: MapPoint(x: 1500, y: 1500), scale: scale)
        #expect(abs(p.east - 10) < 1e-9 && abs(p.north - 10) < 1e-9)
    }

    @Test func restartingRepeatsTheMeasurement() async {
        let provider = SimulatedBLEProvider(environment: simpleEnvironment(), seed: 12)
        let first = await run([provider], ticks: [3000]).perTick
        let second = await run([provider], ticks: [3000]).perTick
        #expect(!first.joined().isEmpty)
        #expect(first == second)
    }

    @Test func fiftyTransmittersForTwoSecondsIsFast() async throws {
        let transmitters = (0..<50).map { i in
            RadioEnvironment.BLETransmitter(
                address: String(format: "C0:00:00:00:00:%02X", i), position: MapPoint(x: Double(i * 40), y: 500),
                measuredPower: -66, intervalMs: 100,
                beacon: Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: 1, minor: i,
                               measuredPower: -66))
        }
        let env = simpleEnvironment(sigma: 4, sensitivity: -200, ble: transmitters)
        let here = MapPoint(x: 1000, y: 800)
        // The model alone, window after window; the best window is what the code costs.
        var simulation = BLESimulation(environment: env, seed: 1)
        var best = Duration.seconds(1)
        var out: [Sample] = []
        for window in 1...10 {
            out.removeAll(keepingCapacity: true)
            let elapsed = ContinuousClock().measure {
                simulation.advance(toMs: window * 2000, position: { _ in here }, into: &out)
            }
            best = min(best, elapsed)
            #expect(out.count > 900 && out.count < 1000, "\(out.count) adverts")
        }
        // Through the provider (actor hop and sink included), one 2 s jump.
        let provider = SimulatedBLEProvider(environment: env, seed: 1)
        let sink = SampleSink()
        _ = await provider.start(context: CaptureContext(clock: VirtualClock(), level: "T1", position: { _ in here }), sink: sink)
        let start = ContinuousClock.now
        await provider.advance(toMs: 2000)
        let viaProvider = ContinuousClock.now - start
        #expect(sink.count(.ble) > 900)
        // Speed is the benchmark's (make bench), not a unit test's: printed only.
        print("50 transmitters × 2 s: model \(best), provider \(viaProvider)")
    }
}
