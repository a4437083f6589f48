import FPAnalysis
import FPConfig
import FPCore

extension ScenarioSet {
    /// Where each map's floor is left or reached (map units), as the scenarios
    /// that walk between floors show it: stairs where the leg before ends and
    /// the leg after starts (both on the floors a flight passes), a lift's car
    /// where the leg before ends, on every floor it serves from one to the other.
    /// `floors`: map → floor number (the app config's); maps without one get
    /// only their own ends.
    func passages(floors: [String: Int]) -> [String: [MapPoint]] {
        var places: [String: [MapPoint]] = [:]
        func add(_ map: String, _ p: MapPoint) {
            if !(places[map]?.contains(p) ?? false) { places[map, default: []].append(p) }
        }
        for scenario in scenarios {
            for (before, after) in zip(scenario.legs, scenario.legs.dropFirst()) where before.mapID != after.mapID {
                let end = before.route.waypoints.last!, start = after.route.waypoints.first!
                let here = after.via == .lift ? [end] : [end, start]
                add(before.mapID, end)
                add(after.mapID, after.via == .lift ? end : start)
                guard let a = floors[before.mapID], let b = floors[after.mapID] else { continue }
                // The floors passed on the way: the same stairs or shaft.
                for (map, floor) in floors where floor > min(a, b) && floor < max(a, b) {
                    for p in here { add(map, p) }
                }
            }
        }
        return places
    }
}

extension [MapModel] {
    /// Each model with its floor's passages from the app config's scenarios.
    /// A scenarios file that does not read leaves them unknown (floor changes
    /// anywhere): the commands that walk scenarios say what is wrong with it.
    func withPassages(_ loaded: LoadedConfig?) -> [MapModel] {
        guard let loaded, let set = try? loaded.scenarios else { return self }
        var floors: [String: Int] = [:]
        for m in loaded.appConfig.maps { if let f = m.floor { floors[m.id] = f } }
        let places = set.passages(floors: floors)
        return map { model in
            var m = model
            m.passages = places[m.id] ?? []
            return m
        }
    }
}
