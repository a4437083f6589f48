import FPCore
import Foundation
import Testing
@testable import FPAnalysis

@Suite struct BeaconHealthTests {
    let day: Int64 = 86_400_000
    let now: Int64 = 1_795_600_000_000

    func registry(_ macs: [String]) throws -> BeaconRegistry {
        try BeaconRegistry(json: .array(macs.enumerated().map { ["mac": .string($1), "x": .int(Int64($0)), "y": 0] }),
                           source: "test")
    }

    @Test func silentNeverHeardAndLowBatteryAreAlerts() throws {
        let reg = try registry(["AA:00:00:00:00:01", "AA:00:00:00:00:02", "AA:00:00:00:00:03", "AA:00:00:00:00:04"])
        let sightings: [String: [BeaconSighting]] = [
            // Last heard 8 days ago, with a TLM battery reading of 2,450 mV then.
            "AA:00:00:00:00:01": [BeaconSighting(at: now - 9 * day, rssi: -70),
                                  BeaconSighting(at: now - 8 * day, rssi: -71, batteryMilliVolts: 2450, temperature: 19.5)],
            // Heard an hour ago; its newest TLM (an older one is lower) is fine.
            "AA:00:00:00:00:02": [BeaconSighting(at: now - 2 * day, rssi: -60, batteryMilliVolts: 2500),
                                  BeaconSighting(at: now - 3_600_000, rssi: -61, batteryMilliVolts: 2950)],
            // Exactly at the silent limit: not yet silent.
            "AA:00:00:00:00:04": [BeaconSighting(at: now - 7 * day, rssi: -80)],
        ]
        let health = BeaconHealth.assess(map: "J3NP", registry: reg, sightings: sightings, now: now)
        #expect(health.map(\.mac) == reg.entries.map(\.id))
        #expect(health[0].alerts == [.silent(days: 8), .lowBattery(milliVolts: 2450)])
        #expect(health[0].batteryMilliVolts == 2450 && health[0].temperature == 19.5 && health[0].reports == 2)
        #expect(health[1].alerts.isEmpty && health[1].batteryMilliVolts == 2950)
        #expect(health[2].alerts == [.neverHeard] && health[2].lastHeard == nil && health[2].medianRSSI == nil)
        #expect(health[3].alerts.isEmpty)
        #expect(health[0].alerts.map(\.description) == ["silent for 8 days", "battery 2450 mV"])
    }

    @Test func theTrendIsTheSlopeThroughEachDaysMedian() throws {
        let reg = try registry(["AA:00:00:00:00:01"])
        // Daily medians −60, −62, −64 (each day's other reports do not move its median): −2 dB a day.
        var seen: [BeaconSighting] = []
        for (d, rssi) in [(3, [-60, -50, -70]), (2, [-62]), (1, [-64, -64])] {
            for r in rssi { seen.append(BeaconSighting(at: now - Int64(d) * day + 1000, rssi: r)) }
        }
        // Older than the 30-day window: left out of the median and the trend.
        seen.append(BeaconSighting(at: now - 40 * day, rssi: -20))
        let h = try #require(BeaconHealth.assess(map: "M", registry: reg, sightings: ["AA:00:00:00:00:01": seen], now: now).first)
        #expect(abs(try #require(h.trendPerWeek) - -14) < 1e-9)
        #expect(h.medianRSSI == -63)
        #expect(h.reports == 7)

        var limits = BeaconLimits()
        limits.trendDays = 1.5
        let short = try #require(BeaconHealth.assess(map: "M", registry: reg, sightings: ["AA:00:00:00:00:01": seen],
                                                     now: now, limits: limits).first)
        #expect(short.trendPerWeek == nil, "one day of reports has no trend")
        #expect(short.medianRSSI == -64)
    }
}
