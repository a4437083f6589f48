import FPConfig
import FPCore
import FPProviders

/// The simulated building `fprint track --simulate --scenario S` walks through:
/// the surveyor moves along the scenario's legs (across maps when it has
/// `then` legs) at walking pace, and hears every floor's simulated BLE and
/// Wi-Fi, other floors `floorLossDb` weaker per floor between (maps of one
/// building share one frame, as the J floors do).
///
/// Each floor's radios run once per floor distance they are heard from, all
/// instances of a floor from the same seed: their noise and advertising
/// phases are in lockstep and differ only by the floor loss, so a sample is
/// taken from the instance matching the surveyor's floor at its time, and
/// crossing floors changes levels, not the random streams. Cells and GNSS
/// are not simulated: positioning does not use them.
struct TrackSimulation: Sendable {
    static let floorLossDb = 15.0

    struct Leg: Sendable {
        let map: String
        let route: Route
        /// Map units walked before this leg starts.
        let startUnits: Double
    }

    struct Instance: Sendable {
        let map: String
        let floorsAway: Int
        var ble: BLESimulation
        var wifi: WiFiSimulation
    }

    let legs: [Leg]
    let unitsPerMs: Double
    let durationMs: Int
    let floors: [String: Int]
    var instances: [Instance]

    /// `environments`: every map with a simulated environment (the scenario's
    /// maps must be among them); `floors`: map → floor number from the app config.
    /// `offRouteM`: every waypoint moved this far towards its leg's middle
    /// (the mean of its waypoints): a walk off the surveyed route.
    init(scenario: Scenario, environments: [RadioEnvironment], floors: [String: Int], pace: WalkPace, scale: MapScale,
         seed: UInt64, offRouteM: Double = 0) {
        var legs: [Leg] = []
        var walked = 0.0
        for leg in scenario.legs {
            let route = Self.inside(leg.route, by: offRouteM / scale.metersPerUnit)
            legs.append(Leg(map: leg.mapID, route: route, startUnits: walked))
            walked += route.length
        }
        self.legs = legs
        unitsPerMs = pace.unitsPerSecond(scale: scale) / 1000
        durationMs = Int((walked / unitsPerMs).rounded(.up))
        self.floors = floors
        let legMaps = Set(legs.map(\.map))
        var instances: [Instance] = []
        for env in environments {
            // How many floors away this floor is heard from, over the walk.
            var distances = Set<Int>()
            for m in legMaps {
                if m == env.map { distances.insert(0) } else if let a = floors[m], let b = floors[env.map] { distances.insert(abs(a - b)) }
            }
            var mixer = SeededRandom(seed: seed).fork("track:\(env.map)")
            let floorSeed = mixer.next()
            for away in distances.sorted() {
                var quieter = env
                let loss = Self.floorLossDb * Double(away)
                for i in quieter.ble.indices { quieter.ble[i].measuredPower -= Int(loss) }
                for i in quieter.wifi.indices { quieter.wifi[i].rssiAt1m -= loss }
                instances.append(Instance(map: env.map, floorsAway: away, ble: BLESimulation(environment: quieter, seed: floorSeed),
                                          wifi: WiFiSimulation(environment: quieter, seed: floorSeed)))
            }
        }
        self.instances = instances
    }

    /// The route with each waypoint `units` closer to the waypoints' mean (no closer than the mean itself).
    static func inside(_ route: Route, by units: Double) -> Route {
        guard units > 0 else { return route }
        let n = Double(route.waypoints.count)
        let cx = route.waypoints.map(\.x).reduce(0, +) / n, cy = route.waypoints.map(\.y).reduce(0, +) / n
        let moved = route.waypoints.map { p -> MapPoint in
            let dx = cx - p.x, dy = cy - p.y, d = (dx * dx + dy * dy).squareRoot()
            guard d > 0 else { return p }
            let f = min(1, units / d)
            return MapPoint(x: p.x + dx * f, y: p.y + dy * f)
        }
        return Route(waypoints: moved) ?? route
    }

    /// Where the surveyor is at `ms`: the map and the point on it.
    func truth(atMs ms: Int) -> (map: String, point: MapPoint) {
        let d = Double(ms) * unitsPerMs
        let leg = legs.last { $0.startUnits <= d } ?? legs[0]
        return (leg.map, leg.route.point(atDistance: d - leg.startUnits))
    }

    /// Floors between the surveyor at `ms` and a map (nil: not heard from there).
    func floorsAway(_ map: String, atMs ms: Int) -> Int? {
        let here = truth(atMs: ms).map
        if here == map { return 0 }
        guard let a = floors[here], let b = floors[map] else { return nil }
        return abs(a - b)
    }

    /// Every sample heard up to `ms`, in time order.
    mutating func advance(toMs ms: Int) -> [Sample] {
        var out: [Sample] = []
        let position: (Int) -> MapPoint = { [self] t in truth(atMs: t).point }
        for i in instances.indices {
            var batch: [Sample] = []
            instances[i].ble.advance(toMs: ms, position: position, into: &batch)
            instances[i].wifi.advance(toMs: ms, position: position, into: &batch)
            let map = instances[i].map, away = instances[i].floorsAway
            out.append(contentsOf: batch.filter { floorsAway(map, atMs: $0.time) == away })
        }
        out.sort { $0.time < $1.time }
        return out
    }
}
