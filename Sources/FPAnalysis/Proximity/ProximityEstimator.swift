import Foundation

/// How near a beacon is, in the classes iOS's CoreLocation gave (CLProximity).
package enum Proximity: String, Sendable, Equatable, CaseIterable {
    /// Within half a metre.
    case immediate
    /// Half a metre to 3 m.
    case near
    /// Beyond 3 m.
    case far
    /// No usable reading lately, or no measured power to compare it with.
    case unknown

    /// The class of an estimated distance in metres.
    package static func of(distance: Double?) -> Proximity {
        guard let distance, distance.isFinite else { return .unknown }
        if distance < 0.5 { return .immediate }
        if distance < 3 { return .near }
        return .far
    }
}

/// Distance and proximity per beacon from its recent RSSI: the median of the
/// readings of the last `windowMs` (a median, not a mean: one reflected or
/// blocked packet moves it little), through the log-distance model with the
/// beacon's measured power at 1 m. No reading within the window, or no
/// measured power: unknown.
package struct ProximityEstimator: Sendable {
    package struct Estimate: Sendable, Equatable {
        package var smoothedRSSI: Double?
        package var distance: Double?
        package var proximity: Proximity
        /// Readings in the window.
        package var readings: Int
    }

    package var windowMs: Int
    package var pathLoss: PathLoss
    /// Per beacon key: (time ms, RSSI) oldest first, and the last measured power heard.
    private var readings: [String: [(ms: Int, rssi: Int)]] = [:]
    private var measuredPower: [String: Int] = [:]

    package init(windowMs: Int = 5000, pathLoss: PathLoss = PathLoss(exponent: 2)) {
        self.windowMs = windowMs
        self.pathLoss = pathLoss
    }

    /// One sighting; `rssi` nil when the controller had none (127), which adds no reading.
    package mutating func add(key: String, rssi: Int?, measuredPower: Int?, atMs ms: Int) {
        if let measuredPower { self.measuredPower[key] = measuredPower }
        guard let rssi else {
            if readings[key] == nil { readings[key] = [] }
            return
        }
        readings[key, default: []].append((ms, rssi))
        forgetOld(key, nowMs: ms)
    }

    package func estimate(key: String, nowMs: Int) -> Estimate {
        let recent = (readings[key] ?? []).filter { nowMs - $0.ms < windowMs }.map(\.rssi)
        guard let median = Self.median(recent) else {
            return Estimate(smoothedRSSI: nil, distance: nil, proximity: .unknown, readings: 0)
        }
        let distance = measuredPower[key].map { pathLoss.distance(rssi: median, measuredPower: Double($0)) }
        return Estimate(smoothedRSSI: median, distance: distance, proximity: .of(distance: distance), readings: recent.count)
    }

    private mutating func forgetOld(_ key: String, nowMs: Int) {
        guard var list = readings[key], let first = list.first, nowMs - first.ms >= windowMs else { return }
        list.removeAll { nowMs - $0.ms >= windowMs }
        readings[key] = list
    }

    static func median(_ values: [Int]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return s.count % 2 == 1 ? Double(s[s.count / 2]) : Double(s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
