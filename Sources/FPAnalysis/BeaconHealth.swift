import FPCore
import Foundation

/// One report of a beacon in a stored measurement.
package struct BeaconSighting: Sendable, Equatable {
    package var at: Int64
    package var rssi: Int?
    /// Eddystone-TLM telemetry carried by this report, if any.
    package var batteryMilliVolts: Int?
    package var temperature: Double?

    package init(at: Int64, rssi: Int?, batteryMilliVolts: Int? = nil, temperature: Double? = nil) {
        self.at = at
        self.rssi = rssi
        self.batteryMilliVolts = batteryMilliVolts
        self.temperature = temperature
    }
}

/// When a beacon needs someone to look at it.
package struct BeaconLimits: Sendable {
    /// Not heard for longer than this: silent.
    package var silentDays: Double = 7
    /// The last Eddystone-TLM battery reading below this: replace the battery.
    package var batteryBelowMilliVolts: Int = 2600
    /// Days of reports the RSSI trend is fitted over, ending now.
    package var trendDays: Double = 30

    package init() {}
}

package enum BeaconAlert: Sendable, Equatable, CustomStringConvertible {
    case neverHeard
    case silent(days: Double)
    case lowBattery(milliVolts: Int)

    package var kind: String {
        switch self {
        case .neverHeard: "never-heard"
        case .silent: "silent"
        case .lowBattery: "low-battery"
        }
    }

    package var description: String {
        switch self {
        case .neverHeard: "never heard"
        case .silent(let days): "silent for \(Int(days.rounded(.down))) days"
        case .lowBattery(let mv): "battery \(mv) mV"
        }
    }
}

/// The health of one registry beacon, from the stored measurements.
package struct BeaconHealth: Sendable {
    package var map: String
    /// The entry's id: its MAC, else the identity it advertises (`BeaconIdentity.text`).
    package var mac: String
    package var x: Double
    package var y: Double
    package var reports: Int
    package var lastHeard: Int64?
    /// Median RSSI of the reports of the trend window (dBm).
    package var medianRSSI: Double?
    /// Least-squares slope of the daily median RSSI over the trend window
    /// (dB per week); nil with fewer than two days of reports.
    package var trendPerWeek: Double?
    /// The newest TLM reading.
    package var batteryMilliVolts: Int?
    package var temperature: Double?
    package var alerts: [BeaconAlert]

    /// Every registry beacon of `map`, with what `sightings` (by `Entry.id`:
    /// upper-case MAC, else advertised identity; any map's documents) say of it at `now` (ms since 1970).
    package static func assess(map: String, registry: BeaconRegistry, sightings: [String: [BeaconSighting]],
                               now: Int64, limits: BeaconLimits = BeaconLimits()) -> [BeaconHealth] {
        registry.entries.map { entry in
            let seen = (sightings[entry.id] ?? []).sorted { $0.at < $1.at }
            let windowStart = now - Int64(limits.trendDays * 86_400_000)
            let recent = seen.filter { $0.at >= windowStart && $0.at <= now }
            let tlm = seen.last { $0.batteryMilliVolts != nil || $0.temperature != nil }
            var health = BeaconHealth(
                map: map, mac: entry.id, x: entry.x, y: entry.y, reports: seen.count, lastHeard: seen.last?.at,
                medianRSSI: Reduction.median(recent.compactMap { $0.rssi.map(Double.init) }),
                trendPerWeek: dailyTrend(recent).map { $0 * 7 },
                batteryMilliVolts: tlm?.batteryMilliVolts, temperature: tlm?.temperature, alerts: [])
            if let last = health.lastHeard {
                let days = Double(now - last) / 86_400_000
                if days > limits.silentDays { health.alerts.append(.silent(days: days)) }
            } else {
                health.alerts.append(.neverHeard)
            }
            if let mv = health.batteryMilliVolts, mv < limits.batteryBelowMilliVolts {
                health.alerts.append(.lowBattery(milliVolts: mv))
            }
            return health
        }
    }

    /// dB per day: the slope of a least-squares line through the median RSSI of each UTC day.
    static func dailyTrend(_ sightings: [BeaconSighting]) -> Double? {
        var byDay: [Int64: [Double]] = [:]
        for s in sightings {
            guard let rssi = s.rssi else { continue }
            byDay[s.at / 86_400_000, default: []].append(Double(rssi))
        }
        guard byDay.count >= 2 else { return nil }
        let points = byDay.map { (Double($0.key), Reduction.median($0.value)!) }
        let meanX = points.map(\.0).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.1).reduce(0, +) / Double(points.count)
        let sxx = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
        let sxy = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        return sxy / sxx
    }
}
