/// A point on a floor plan, in map units.
public struct MapPoint: Codable, Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public func distance(to other: MapPoint) -> Double {
        let dx = other.x - x, dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// A polyline of waypoints walked at constant speed: the moving target point of a walk.
public struct Route: Sendable, Equatable {
    public let waypoints: [MapPoint]
    /// Cumulative length at each waypoint (0 at the first).
    public let cumulative: [Double]

    /// nil for fewer than two waypoints.
    public init?(waypoints: [MapPoint]) {
        guard waypoints.count >= 2 else { return nil }
        self.waypoints = waypoints
        var sums = [0.0]
        for i in 1..<waypoints.count { sums.append(sums[i - 1] + waypoints[i - 1].distance(to: waypoints[i])) }
        cumulative = sums
    }

    public var length: Double { cumulative.last ?? 0 }

    /// The point at a distance along the route, clamped to its ends.
    public func point(atDistance d: Double) -> MapPoint {
        if d <= 0 { return waypoints[0] }
        if d >= length { return waypoints[waypoints.count - 1] }
        // Binary search for the segment holding d.
        var lo = 0, hi = cumulative.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if cumulative[mid] <= d { lo = mid } else { hi = mid }
        }
        let a = waypoints[lo], b = waypoints[lo + 1]
        let segment = cumulative[lo + 1] - cumulative[lo]
        let f = segment > 0 ? (d - cumulative[lo]) / segment : 0
        return MapPoint(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f)
    }

    /// Index of the waypoint the walker heads to at distance d.
    public func nextWaypointIndex(atDistance d: Double) -> Int {
        cumulative.firstIndex { $0 > d } ?? waypoints.count - 1
    }
}

/// Walking pace. Correction 0 is 1 m/s; each step of the −10…+10 correction
/// adds or removes 5 %: v = 1 m/s × (1 + 0.05 · c), so −10 is 0.5 m/s and +10 is 1.5 m/s.
public struct WalkPace: Sendable, Equatable {
    public static let correctionRange = -10...10
    public let correction: Int
    public init(correction: Int) { self.correction = correction }

    public var metersPerSecond: Double { 1.0 * (1.0 + 0.05 * Double(correction)) }

    public func unitsPerSecond(scale: MapScale) -> Double { metersPerSecond * scale.unitsPerMeter }
}

/// How map units relate to metres (J building: 45 m = 2250 units).
public struct MapScale: Codable, Sendable, Equatable {
    public var meters: Double
    public var units: Double
    public init(meters: Double, units: Double) {
        self.meters = meters
        self.units = units
    }
    public static let jBuilding = MapScale(meters: 45, units: 2250)
    public var unitsPerMeter: Double { units / meters }
    public var metersPerUnit: Double { meters / units }
}
