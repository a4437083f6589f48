import FPConfig
import FPCore
import FPSession
import Foundation

/// A scenario walked floor by floor: its first route, then each `then`
/// leg on its own map, reached by stairs or a lift. Each part is a `Walk`
/// on its map, so every document is stored on the map it was taken on;
/// they share one walk session and number their `seq` on through all the
/// parts. Nothing is recorded on the stairs or in the lift (they are on no
/// plan): the walk waits there for the passage's time, then goes on.
struct FloorWalk {
    struct Part {
        var walk: Walk
        var map: MapInfo
        /// How this part is reached from the one before (nil: the first).
        var via: FloorTransition?
        /// Seconds the stairs or lift take from the part before (0: the first, or the same floor).
        var passageSeconds: Int
    }

    let parts: [Part]

    var sessionId: String { parts[0].walk.sessionId }
    var documentCount: Int { parts.reduce(0) { $0 + $1.walk.windows.count } }
    var walkingMs: Int { parts.reduce(0) { $0 + $1.walk.durationMs } }
    var lengthMeters: Double { parts.reduce(0) { $0 + $1.walk.route.length * $1.map.scale.metersPerUnit } }
    var maps: [String] { parts.map(\.map.id) }

    /// Every leg of `scenario` on its map, checked to lie on it unless `force`.
    init(_ scenario: Scenario, maps: (String) throws -> MapInfo, pace: WalkPace, sessionId: String, force: Bool) throws {
        var parts: [Part] = []
        var nextSeq = 1
        for (i, leg) in scenario.legs.enumerated() {
            let map = try maps(leg.mapID)
            if !force, let why = map.offRoute(leg.route.waypoints) {
                let on = scenario.then.isEmpty ? "" : " (on \(leg.mapID))"
                throw CommandFailure("scenario \(scenario.scenarioID)\(on), \(why); --force walks it all the same", .dataError)
            }
            let walk = Walk(level: map.id, scenarioId: scenario.scenarioID, route: leg.route, pace: pace,
                            scale: map.scale, sessionId: sessionId, firstSeq: nextSeq)
            nextSeq += walk.windows.count
            let passage = i == 0 ? 0 : Self.passageSeconds(leg.via, from: parts[i - 1].map.floor, to: map.floor)
            parts.append(Part(walk: walk, map: map, via: i == 0 ? nil : leg.via, passageSeconds: passage))
        }
        self.parts = parts
    }

    /// The time a surveyor takes between two floors: `FloorPassage`'s
    /// (15 s of stairs a floor; a lift's doors 8 s and 4 s a floor), at
    /// least one floor's worth when the maps do not say their floors.
    static func passageSeconds(_ via: FloorTransition, from: Int?, to: Int?) -> Int {
        let floors = max(1, abs((to ?? 1) - (from ?? 0)))
        let ms = via == .stairs ? FloorPassage.stairsMsPerFloor * floors : FloorPassage.liftDoorsMs + FloorPassage.liftMsPerFloor * floors
        return ms / 1000
    }

    /// "walk S on ANNEX0 → ANNEX1 (stairs): 9 waypoints, 60.9 m at 1.00 m/s, about 76 s, 30 documents".
    var headline: String {
        let first = parts[0]
        var route = first.map.id
        for part in parts.dropFirst() { route += " → \(part.map.id) (\(part.via?.rawValue ?? "stairs"))" }
        let waypoints = parts.reduce(0) { $0 + $1.walk.route.waypoints.count }
        let seconds = Double(walkingMs) / 1000 + Double(parts.reduce(0) { $0 + $1.passageSeconds })
        return String(format: "walk %@ on %@: %d waypoints, %.1f m at %.2f m/s, about %.0f s, %d documents",
                      first.walk.scenarioId, route, waypoints, lengthMeters, first.walk.pace.metersPerSecond,
                      seconds, documentCount)
    }
}
