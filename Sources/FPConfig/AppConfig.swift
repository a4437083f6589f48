import FPCore
import Foundation

/// One floor plan of the app config (`maps[]`). `scale` and `floor` are fprint
/// additions; configs of the old apps have neither.
package struct MapInfo: Sendable, Equatable {
    package var id: String
    package var location: String
    package var description: String
    package var mapURL: String
    /// Map units per metre; `MapScale.jBuilding` when the config gives none.
    package var scale: MapScale
    package var floor: Int?
    /// Where points of the plan can lie; nil when the config gives none (points are then not checked).
    package var extent: MapExtent?
    /// The floor's outline (`maps[].outline`, ≥ 3 points in map units), which
    /// plots draw and clip their surfaces to; nil: the plot's rectangle.
    package var outline: [MapPoint]?
    /// A picture of the plan drawn under plots (`maps[].floorPlan`).
    package var floorPlan: FloorPlanImage?
    /// Where the plan lies on the Earth (`maps[].geo`); nil: not known.
    package var geo: MapGeo?

    package init(id: String, location: String, description: String, mapURL: String,
                scale: MapScale = .jBuilding, floor: Int? = nil, extent: MapExtent? = nil) {
        self.id = id
        self.location = location
        self.description = description
        self.mapURL = mapURL
        self.scale = scale
        self.floor = floor
        self.extent = extent
    }

    /// nil when `point` lies on the plan (or the map has no extent), else why not:
    /// "(99999, 1) is outside map J1NP: x 0–2500, y 0–3000 map units (50 × 60 m)".
    package func outside(_ point: MapPoint) -> String? {
        guard let extent, !extent.contains(point) else { return nil }
        return String(format: "(%g, %g) is outside map %@: ", point.x, point.y, id) + extent.describe(scale)
    }
}

/// A plan's extent (app config `maps[].extent`): x from 0 to `width`, y from
/// 0 to `height`, map units from the plan's origin (top left).
package struct MapExtent: Sendable, Equatable {
    package var width: Double
    package var height: Double

    package init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    package func contains(_ p: MapPoint) -> Bool { (0...width).contains(p.x) && (0...height).contains(p.y) }

    /// "x 0–2500, y 0–3000 map units (50 × 60 m)".
    package func describe(_ scale: MapScale) -> String {
        String(format: "x 0–%g, y 0–%g map units (%g × %g m)", width, height,
               (width * scale.metersPerUnit * 10).rounded() / 10, (height * scale.metersPerUnit * 10).rounded() / 10)
    }
}

/// The app config of Radio F-Prints: where the gateway and the scenarios are,
/// and which maps exist.
package struct AppConfig: Sendable, Equatable {
    package var gatewayURL: String
    package var authURL: String
    /// An absolute URL, or a path relative to the app config's own location.
    package var scenariosURL: String
    package var maps: [MapInfo]
    /// The `alerts` member as it stands (rules and webhook); FPAnalysis's
    /// `AlertSettings` reads it, so a config without it reads as before.
    package var alerts: JSONValue?

    package init(gatewayURL: String, authURL: String, scenariosURL: String, maps: [MapInfo]) {
        self.gatewayURL = gatewayURL
        self.authURL = authURL
        self.scenariosURL = scenariosURL
        self.maps = maps
    }

    package func map(id: String) -> MapInfo? { maps.first { $0.id == id } }

    /// Parses and validates app config JSON; `source` (a path or URL) names it in errors.
    package static func parse(_ data: Data, source: String) throws(ConfigError) -> AppConfig {
        try AppConfig(json: JSONText.parse(data, source: source), source: source)
    }

    package init(json: JSONValue, source: String) throws(ConfigError) {
        let r = JSONReader(source: source)
        let root = try r.object(json, at: "$")
        gatewayURL = try r.httpURL(root, "gatewayURL", at: "$")
        authURL = try r.httpURL(root, "authURL", at: "$")
        scenariosURL = try r.string(root, "scenariosURL", at: "$", nonEmpty: true)
        let list = try r.array(r.required(root, "maps", at: "$", expected: "an array"), at: "$.maps")
        guard !list.isEmpty else { throw r.error("$.maps", "an app config needs at least 1 map, found 0") }

        var maps: [MapInfo] = []
        var firstUse: [String: String] = [:]
        for (i, item) in list.enumerated() {
            let path = JSONPath.element("$.maps", i)
            let map = try Self.map(item, at: path, reader: r)
            if let first = firstUse[map.id] {
                throw r.error("\(path).id", "duplicate map id \"\(map.id)\", first used at \(first)")
            }
            firstUse[map.id] = path
            maps.append(map)
        }
        self.maps = maps
        alerts = root["alerts"]
    }

    private static func map(_ value: JSONValue, at path: String, reader r: JSONReader) throws(ConfigError) -> MapInfo {
        let o = try r.object(value, at: path)
        var map = MapInfo(
            id: try r.string(o, "id", at: path, nonEmpty: true),
            location: try r.string(o, "location", at: path),
            description: try r.string(o, "description", at: path),
            mapURL: try r.string(o, "mapURL", at: path))
        if let scale = o["scale"] {
            let scalePath = "\(path).scale"
            let s = try r.object(scale, at: scalePath)
            map.scale = MapScale(meters: try r.positiveNumber(s, "meters", at: scalePath),
                                 units: try r.positiveNumber(s, "units", at: scalePath))
        }
        if let floor = o["floor"] {
            map.floor = try r.integer(floor, at: "\(path).floor")
        }
        if let extent = o["extent"] {
            let extentPath = "\(path).extent"
            let e = try r.object(extent, at: extentPath)
            map.extent = MapExtent(width: try r.positiveNumber(e, "width", at: extentPath),
                                   height: try r.positiveNumber(e, "height", at: extentPath))
        }
        if let outline = o["outline"] {
            let outlinePath = "\(path).outline"
            let corners = try r.array(outline, at: outlinePath)
            guard corners.count >= 3 else {
                throw r.error(outlinePath, "expected at least 3 points {x, y}, found \(corners.count)")
            }
            map.outline = try corners.enumerated().map { (i, corner) throws(ConfigError) -> MapPoint in
                let cornerPath = "\(outlinePath)[\(i)]"
                let c = try r.object(corner, at: cornerPath)
                return MapPoint(x: try r.number(c, "x", at: cornerPath), y: try r.number(c, "y", at: cornerPath))
            }
        }
        if let plan = o["floorPlan"] {
            map.floorPlan = try FloorPlanImage(plan, at: "\(path).floorPlan", reader: r)
        }
        if let geo = o["geo"] {
            map.geo = try MapGeo.read(geo, at: "\(path).geo", reader: r)
        }
        return map
    }
}

/// One scripted walk: waypoints on a map, walked in order.
package struct Scenario: Sendable, Equatable {
    package let scenarioID: String
    package let name: String
    package let mapID: String
    package let points: [MapPoint]
    /// The waypoints as a route; always valid because a scenario has at least 2 points.
    package let route: Route
    /// Where the route goes on after its last point, on other maps (floors), in
    /// order: the optional `then` list of `{mapID, points}`. `walk` and the
    /// Survey page walk each leg on its map (`FloorWalk`); `track --simulate`
    /// follows it through the stairs or lift.
    package let then: [Leg]

    /// A part of a scenario on one map; it starts where the one before ended,
    /// reached `via` stairs or a lift when its floor is another.
    package struct Leg: Sendable, Equatable {
        package let mapID: String
        package let route: Route
        package var via: FloorTransition = .stairs
    }

    /// nil for fewer than 2 points.
    package init?(scenarioID: String, name: String, mapID: String, points: [MapPoint], then: [Leg] = []) {
        guard let route = Route(waypoints: points) else { return nil }
        self.scenarioID = scenarioID
        self.name = name
        self.mapID = mapID
        self.points = points
        self.route = route
        self.then = then
    }

    /// Every leg, the scenario's own first.
    package var legs: [Leg] { [Leg(mapID: mapID, route: route)] + then }
}

/// How a walk goes from one floor to another: a place with its own signals,
/// not a jump (`fprint track --simulate` walks it).
package enum FloorTransition: String, Sendable, Equatable, CaseIterable {
    case stairs
    case lift
}

/// The scenarios file (`{"scenarios": [...]}`).
package struct ScenarioSet: Sendable, Equatable {
    package var scenarios: [Scenario]

    package init(scenarios: [Scenario]) { self.scenarios = scenarios }

    package func scenario(id: String) -> Scenario? { scenarios.first { $0.scenarioID == id } }

    /// Parses and validates scenarios JSON. With an app config, every `mapID`
    /// must name one of its maps.
    package static func parse(_ data: Data, source: String, appConfig: AppConfig? = nil) throws(ConfigError) -> ScenarioSet {
        try ScenarioSet(json: JSONText.parse(data, source: source), source: source, appConfig: appConfig)
    }

    package init(json: JSONValue, source: String, appConfig: AppConfig? = nil) throws(ConfigError) {
        let r = JSONReader(source: source)
        let root = try r.object(json, at: "$")
        let list = try r.array(r.required(root, "scenarios", at: "$", expected: "an array"), at: "$.scenarios")
        var scenarios: [Scenario] = []
        var firstUse: [String: String] = [:]
        for (i, item) in list.enumerated() {
            let path = JSONPath.element("$.scenarios", i)
            let scenario = try Self.scenario(item, at: path, reader: r)
            if let first = firstUse[scenario.scenarioID] {
                throw r.error("\(path).scenarioID", "duplicate scenario id \"\(scenario.scenarioID)\", first used at \(first)")
            }
            firstUse[scenario.scenarioID] = path
            if let appConfig {
                for (j, leg) in scenario.legs.enumerated() where appConfig.map(id: leg.mapID) == nil {
                    let known = appConfig.maps.map(\.id).joined(separator: ", ")
                    let at = j == 0 ? "\(path).mapID" : "\(JSONPath.element("\(path).then", j - 1)).mapID"
                    throw r.error(at, "\"\(leg.mapID)\" names no map of the app config (maps: \(known))")
                }
            }
            scenarios.append(scenario)
        }
        self.scenarios = scenarios
    }

    private static func scenario(_ value: JSONValue, at path: String, reader r: JSONReader) throws(ConfigError) -> Scenario {
        let o = try r.object(value, at: path)
        let id = try r.string(o, "scenarioID", at: path, nonEmpty: true)
        let name = try r.string(o, "name", at: path)
        let mapID = try r.string(o, "mapID", at: path, nonEmpty: true)
        let points = try Self.points(o, at: path, reader: r)
        var then: [Scenario.Leg] = []
        if let legs = o["then"], !legs.isNull {
            let thenPath = "\(path).then"
            for (i, item) in try r.array(legs, at: thenPath).enumerated() {
                let legPath = JSONPath.element(thenPath, i)
                let leg = try r.object(item, at: legPath)
                let legMap = try r.string(leg, "mapID", at: legPath, nonEmpty: true)
                guard let route = Route(waypoints: try Self.points(leg, at: legPath, reader: r)) else {
                    throw r.error("\(legPath).points", "a leg needs at least 2 points")
                }
                var via = FloorTransition.stairs
                if let value = leg["via"], !value.isNull {
                    let name = try r.string(leg, "via", at: legPath)
                    guard let known = FloorTransition(rawValue: name) else {
                        throw r.error("\(legPath).via", "\"\(name)\" is not a way between floors (stairs or lift)")
                    }
                    via = known
                }
                then.append(Scenario.Leg(mapID: legMap, route: route, via: via))
            }
        }
        guard let scenario = Scenario(scenarioID: id, name: name, mapID: mapID, points: points, then: then) else {
            throw r.error("\(path).points", "a scenario needs at least 2 points, found \(points.count)")
        }
        return scenario
    }

    private static func points(_ o: JSONObject, at path: String, reader r: JSONReader) throws(ConfigError) -> [MapPoint] {
        let pointsPath = "\(path).points"
        let list = try r.array(r.required(o, "points", at: path, expected: "an array"), at: pointsPath)
        var points: [MapPoint] = []
        for (i, item) in list.enumerated() {
            let pointPath = JSONPath.element(pointsPath, i)
            let p = try r.object(item, at: pointPath)
            points.append(MapPoint(x: try r.number(p, "X", at: pointPath), y: try r.number(p, "Y", at: pointPath)))
        }
        return points
    }
}
