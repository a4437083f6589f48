import FPConfig
import FPCore
import FPProviders

/// The simulated building `fprint track --simulate --scenario S` walks through:
/// the surveyor moves along the scenario's legs (across maps when it has
/// `then` legs) at walking pace, and hears every floor's simulated BLE and
/// Wi-Fi, other floors `floorLossDb` weaker per floor between (maps of one
/// building share one frame, as the J floors do).
///
/// Floors are changed as they are walked (`FloorPassage`): on the stairs the
/// surveyor rises between floors over seconds, so the floor left fades while
/// the next one grows; a lift's car shields everything for its whole ride.
///
/// Each floor's radios run once, at no floor loss; a sample's level is then
/// lowered by the loss at its time (the floors between, the car) and dropped
/// below the receiver's sensitivity. Noise and advertising phases are the
/// floor's own, so crossing floors changes levels, not the random streams.
/// Cells and GNSS are not simulated: positioning does not use them.
struct TrackSimulation: Sendable {
    static let floorLossDb = 15.0

    struct Leg: Sendable {
        let map: String
        let route: Route
        /// When the walk reaches the leg's first point and leaves its last.
        let startMs: Int
        let endMs: Int
        /// How the walk came to this leg from the one before (nil: the first
        /// leg, or one on the same floor: no passage).
        let passage: FloorPassage?
    }

    struct Instance: Sendable {
        let map: String
        let sensitivityDbm: Double
        var ble: BLESimulation
        var wifi: WiFiSimulation
    }

    let legs: [Leg]
    let durationMs: Int
    let floors: [String: Int]
    var instances: [Instance]

    /// `environments`: every map with a simulated environment (the scenario's
    /// maps must be among them); `floors`: map → floor number from the app config.
    /// `offRouteM`: every waypoint moved this far towards its leg's middle
    /// (the mean of its waypoints): a walk off the surveyed route.
    init(scenario: Scenario, environments: [RadioEnvironment], floors: [String: Int], pace: WalkPace, scale: MapScale,
         seed: UInt64, offRouteM: Double = 0) {
        let unitsPerMs = pace.unitsPerSecond(scale: scale) / 1000
        var legs: [Leg] = []
        var clock = 0
        for leg in scenario.legs {
            var route = Self.inside(leg.route, by: offRouteM / scale.metersPerUnit)
            var passage: FloorPassage?
            if let previous = legs.last, let a = floors[previous.map], let b = floors[leg.mapID], a != b {
                let car = previous.route.waypoints.last!
                let p = FloorPassage(via: leg.via, fromFloor: a, toFloor: b, startMs: clock, from: car, to: route.waypoints[0])
                clock = p.endMs
                passage = p
                // A lift is one shaft: the walker leaves the car where they entered it, then walks to the leg.
                if leg.via == .lift, route.waypoints[0] != car, let fromCar = Route(waypoints: [car] + route.waypoints) {
                    route = fromCar
                }
            }
            let walkMs = Int((route.length / unitsPerMs).rounded(.up))
            legs.append(Leg(map: leg.mapID, route: route, startMs: clock, endMs: clock + walkMs, passage: passage))
            clock += walkMs
        }
        self.legs = legs
        durationMs = clock
        self.floors = floors
        let legMaps = Set(legs.map(\.map))
        let everyLegHasAFloor = legMaps.allSatisfy { floors[$0] != nil }
        var instances: [Instance] = []
        for env in environments where legMaps.contains(env.map) || (floors[env.map] != nil && everyLegHasAFloor) {
            var mixer = SeededRandom(seed: seed).fork("track:\(env.map)")
            let floorSeed = mixer.next()
            instances.append(Instance(map: env.map, sensitivityDbm: env.propagation.sensitivityDbm,
                                      ble: BLESimulation(environment: env, seed: floorSeed),
                                      wifi: WiFiSimulation(environment: env, seed: floorSeed)))
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

    /// Where the surveyor is at `ms`: on a leg, or on the way to one.
    private func place(atMs ms: Int) -> (leg: Int, passage: FloorPassage?) {
        let i = legs.lastIndex { ($0.passage?.startMs ?? $0.startMs) <= ms } ?? 0
        if let p = legs[i].passage, ms < p.endMs { return (i, p) }
        return (i, nil)
    }

    /// Where the surveyor is at `ms`: the map and the point on it. On a
    /// floor passage, the map of the nearest floor.
    func truth(atMs ms: Int) -> (map: String, point: MapPoint) {
        let (i, passage) = place(atMs: ms)
        if let passage { return (map(nearestFloor: passage.floor(atMs: ms), between: legs[i - 1].map, legs[i].map), passage.point(atMs: ms)) }
        let leg = legs[i]
        let units = Double(max(0, ms - leg.startMs)) / Double(max(1, leg.endMs - leg.startMs)) * leg.route.length
        return (leg.map, leg.route.point(atDistance: min(units, leg.route.length)))
    }

    /// The map of the floor nearest to `floor`: one of the two the passage
    /// joins at its ends, a floor it passes (a lift's) in between.
    private func map(nearestFloor floor: Double, between from: String, _ to: String) -> String {
        let nearest = Int(floor.rounded())
        for candidate in [from, to] where floors[candidate] == nearest { return candidate }
        return floors.filter { $0.value == nearest }.keys.sorted().first ?? to
    }

    /// Where the surveyor is, as a possibly fractional floor, and what a lift's car takes off every signal.
    private func level(atMs ms: Int) -> (map: String, floor: Double?, carLossDb: Double) {
        let (i, passage) = place(atMs: ms)
        if let passage { return (legs[i].map, passage.floor(atMs: ms), passage.carLossDb(atMs: ms)) }
        return (legs[i].map, floors[legs[i].map].map(Double.init), 0)
    }

    /// dB a map's transmitters lose on their way to the surveyor at `ms`, or nil when that map is not heard.
    func lossDb(from map: String, atMs ms: Int) -> Double? {
        let here = level(atMs: ms)
        if let floor = here.floor, let theirs = floors[map] {
            return (Self.floorLossDb * abs(floor - Double(theirs)) + here.carLossDb).rounded()
        }
        return map == here.map ? here.carLossDb : nil
    }

    /// Every sample heard up to `ms`, in time order.
    mutating func advance(toMs ms: Int) -> [Sample] {
        var out: [Sample] = []
        let position: (Int) -> MapPoint = { [self] t in truth(atMs: t).point }
        for i in instances.indices {
            var batch: [Sample] = []
            instances[i].ble.advance(toMs: ms, position: position, into: &batch)
            instances[i].wifi.advance(toMs: ms, position: position, into: &batch)
            let map = instances[i].map, sensitivity = instances[i].sensitivityDbm
            for sample in batch {
                guard let loss = lossDb(from: map, atMs: sample.time) else { continue }
                if let quieter = Self.lowered(sample, by: Int(loss), sensitivityDbm: sensitivity) { out.append(quieter) }
            }
        }
        out.sort { $0.time < $1.time }
        return out
    }

    /// The sample `db` weaker, or nil when that is below the receiver's sensitivity.
    static func lowered(_ sample: Sample, by db: Int, sensitivityDbm: Double) -> Sample? {
        guard db > 0 else { return sample }
        switch sample {
        case .ble(var scan):
            guard let rssi = scan.rssi else { return sample }
            scan.rssi = rssi - db
            return Double(rssi - db) >= sensitivityDbm ? .ble(scan) : nil
        case .wifi(var scan):
            scan.rssi -= db
            return Double(scan.rssi) >= sensitivityDbm ? .wifi(scan) : nil
        case .cell, .geo:
            return sample
        }
    }
}

/// Stairs or a lift between two floors, as a simulated walk goes through them.
///
/// - Stairs: `stairsMsPerFloor` per floor (two flights of ~10 steps and a
///   landing), rising evenly while walking from the last leg's end to the
///   next leg's start; the stairwell is open, so both floors are heard,
///   the one left fading as the next grows.
/// - A lift: the doors close, the car rides `liftMsPerFloor` per floor, the
///   doors open (`liftDoorsMs` in all); the car's metal walls take
///   `liftCarLossDb` off every signal for the whole passage.
struct FloorPassage: Sendable {
    static let stairsMsPerFloor = 15_000
    static let liftDoorsMs = 8_000
    static let liftMsPerFloor = 4_000
    static let liftCarLossDb = 10.0

    let via: FloorTransition
    let fromFloor: Int
    let toFloor: Int
    let startMs: Int
    let endMs: Int
    let from: MapPoint
    let to: MapPoint

    init(via: FloorTransition, fromFloor: Int, toFloor: Int, startMs: Int, from: MapPoint, to: MapPoint) {
        self.via = via
        self.fromFloor = fromFloor
        self.toFloor = toFloor
        self.startMs = startMs
        self.from = from
        self.to = to
        let floors = abs(toFloor - fromFloor)
        endMs = startMs + (via == .stairs ? Self.stairsMsPerFloor * floors : Self.liftDoorsMs + Self.liftMsPerFloor * floors)
    }

    /// 0 at the start, 1 at the end: how far the passage has gone between the floors.
    func progress(atMs ms: Int) -> Double {
        let t = Double(min(max(ms, startMs), endMs) - startMs)
        switch via {
        case .stairs:
            return t / Double(endMs - startMs)
        case .lift:
            // Half the doors' time before the ride, half after it.
            let ride = Double(endMs - startMs - Self.liftDoorsMs), wait = Double(Self.liftDoorsMs) / 2
            return min(1, max(0, (t - wait) / ride))
        }
    }

    func floor(atMs ms: Int) -> Double {
        Double(fromFloor) + Double(toFloor - fromFloor) * progress(atMs: ms)
    }

    func carLossDb(atMs ms: Int) -> Double { via == .lift && ms >= startMs && ms < endMs ? Self.liftCarLossDb : 0 }

    /// Walked evenly from the last leg's end to the next one's start (stairs); a lift's car stays in its
    /// shaft, at the same place on every floor (where the last leg ended).
    func point(atMs ms: Int) -> MapPoint {
        guard via == .stairs else { return from }
        let f = progress(atMs: ms)
        return MapPoint(x: from.x + (to.x - from.x) * f, y: from.y + (to.y - from.y) * f)
    }
}
