import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// What `fprint map show` says of a map, as lines of text or one JSON object.
struct MapFacts {
    var map: MapInfo
    var plan: Result<SVGPlot.FloorPlan?, CommandFailure>
    var measured: (documents: Int, points: [(x: Double, y: Double, count: Int)])?
    var database: String
    var registry: BeaconRegistry?
    var registryPath: String?
    var routes: [(scenario: Scenario, route: Route)]
    /// Each route's whole length in metres, over every floor it visits.
    var wholeMeters: [String: Double] = [:]

    var metersPerUnit: Double { map.scale.metersPerUnit }

    /// The plan's size in metres: its extent's, else its picture's; nil when it has neither.
    var sizeMeters: (width: Double, height: Double)? {
        if let e = map.extent { return (e.width * metersPerUnit, e.height * metersPerUnit) }
        if case .success(let p?) = plan { return (p.width * metersPerUnit, p.height * metersPerUnit) }
        return nil
    }

    /// To a thousandth: 2,500 units at 0.02 m are 50 m, not 50.00000000000001.
    static func round(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
    static func g(_ v: Double) -> String { String(format: "%g", (v * 100).rounded() / 100) }

    var text: [String] {
        var rows: [[String]] = []
        rows.append(["map", map.id + (map.floor.map { " (floor \($0))" } ?? "")
            + (map.description.isEmpty ? "" : ": \(map.description)")])
        if !map.location.isEmpty { rows.append(["location", map.location]) }
        var scale = "\(Self.g(map.scale.meters)) m = \(Self.g(map.scale.units)) map unit\(map.scale.units == 1 ? "" : "s") (\(String(format: "%g", metersPerUnit)) m a unit)"
        if let size = sizeMeters { scale += "; the plan is \(Self.g(size.width)) × \(Self.g(size.height)) m" }
        rows.append(["scale", scale])
        rows.append(["extent", map.extent.map { String(format: "x 0–%g, y 0–%g map units", $0.width, $0.height) } ?? "not given"])
        rows.append(["outline", map.outline.map { corners in
            "\(corners.count) corners: " + corners.map { "(\(Self.g($0.x)), \(Self.g($0.y)))" }.joined(separator: " ")
        } ?? "none (the extent's rectangle)"])
        rows.append(["floor plan", planText])
        rows.append(["measured", measured.map {
            "\(Terminal.counted($0.documents, "measurement")) at \(Terminal.counted($0.points.count, "point")) in \(database)"
        } ?? "no database at \(database)"])
        rows.append(["beacons", registry.map { "\($0.entries.count) placed, from \(registryPath ?? "?")" } ?? "no registry (beacons/\(map.id).json)"])
        rows.append(["routes", routes.isEmpty ? "none" : routes.map { r in
            let here = r.route.length * metersPerUnit
            let maps = r.scenario.legs.map(\.mapID)
            guard maps.count > 1, let whole = wholeMeters[r.scenario.scenarioID] else {
                return "\(r.scenario.scenarioID) (\(Self.g(here)) m)"
            }
            return "\(r.scenario.scenarioID) (\(Self.g(here)) m here, \(Self.g(whole)) m in all: \(maps.joined(separator: " → ")))"
        }.joined(separator: ", ")])
        return Terminal.table(["", ""], rows).dropFirst().map { $0 }
    }

    private var planText: String {
        guard let floorPlan = map.floorPlan else { return "none" }
        switch plan {
        case .success(let p?):
            return "\(floorPlan.image) (\(p.header.width) × \(p.header.height) px, \(Self.g(floorPlan.unitsPerPixel)) unit\(floorPlan.unitsPerPixel == 1 ? "" : "s") a pixel, "
                + "top left at \(Self.g(floorPlan.origin.x)), \(Self.g(floorPlan.origin.y)))"
        case .success(nil): return "none"
        case .failure(let f): return "\(floorPlan.image): not readable (\(f.description))"
        }
    }

    var json: JSONObject {
        var o: JSONObject = [
            "id": .string(map.id), "floor": map.floor.map { JSONValue.int(Int64($0)) } ?? .null,
            "description": .string(map.description), "location": .string(map.location),
            "scale": ["meters": .double(map.scale.meters), "units": .double(map.scale.units), "metersPerUnit": .double(metersPerUnit)],
            "sizeMeters": sizeMeters.map { JSONValue.object(["width": .double(Self.round($0.width)), "height": .double(Self.round($0.height))]) } ?? .null,
            "extent": map.extent.map { JSONValue.object(["width": .double($0.width), "height": .double($0.height)]) } ?? .null,
            "outline": map.outline.map { JSONValue.array($0.map { ["x": .double($0.x), "y": .double($0.y)] }) } ?? .null,
            "measurements": measured.map { JSONValue.int(Int64($0.documents)) } ?? .null,
            "measuredPoints": measured.map { JSONValue.int(Int64($0.points.count)) } ?? .null,
            "beacons": .int(Int64(registry?.entries.count ?? 0)),
            "beaconRegistry": registryPath.map(JSONValue.string) ?? .null,
            "routes": .array(routes.map {
                ["scenarioID": .string($0.scenario.scenarioID), "name": .string($0.scenario.name),
                 "lengthMeters": .double(Self.round($0.route.length * metersPerUnit)),
                 "wholeLengthMeters": .double(Self.round(wholeMeters[$0.scenario.scenarioID] ?? $0.route.length * metersPerUnit)),
                 "maps": .array($0.scenario.legs.map { .string($0.mapID) }),
                 "points": .int(Int64($0.route.waypoints.count))]
            }),
        ]
        if let floorPlan = map.floorPlan {
            var p: JSONObject = ["image": .string(floorPlan.image), "unitsPerPixel": .double(floorPlan.unitsPerPixel),
                                 "origin": ["x": .double(floorPlan.origin.x), "y": .double(floorPlan.origin.y)]]
            switch plan {
            case .success(let read?):
                p["widthPx"] = .int(Int64(read.header.width))
                p["heightPx"] = .int(Int64(read.header.height))
            case .failure(let f): p["problem"] = .string(f.description)
            case .success(nil): break
            }
            o["floorPlan"] = .object(p)
        } else {
            o["floorPlan"] = .null
        }
        return o
    }
}

extension MapInfo {
    /// Why a point is not on the floor (outside the extent or the outline), nil when it is:
    /// route waypoints and the Survey page's clicks are checked with it.
    func offMap(_ p: MapPoint) -> String? {
        if let why = outside(p) { return why }
        if let outline, !SVGPlot.inside(outline.map { (x: $0.x, y: $0.y) }, x: p.x, y: p.y) {
            return String(format: "(%g, %g) is outside map %@'s outline", p.x, p.y, id)
        }
        return nil
    }

    /// Why a route on this map leaves the floor, nil when it does not: each
    /// waypoint, then each leg between two, since in a concave outline both
    /// ends of a leg can be indoors while the leg cuts across outdoors.
    func offRoute(_ points: [MapPoint]) -> String? {
        for (n, p) in points.enumerated() {
            if let why = offMap(p) { return "waypoint \(n + 1): \(why)" }
        }
        guard let outline else { return nil }
        let polygon = outline.map { (x: $0.x, y: $0.y) }
        for n in points.indices.dropFirst() where !Outline.contains(polygon, from: (points[n - 1].x, points[n - 1].y), to: (points[n].x, points[n].y)) {
            let (a, b) = (points[n - 1], points[n])
            return String(format: "the leg from waypoint %d (%g, %g) to %d (%g, %g) leaves map %@'s outline", n, a.x, a.y, n + 1, b.x, b.y, id)
        }
        return nil
    }
}
