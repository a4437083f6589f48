import FPAnalysis
import FPCore

/// What the dashboard draws a map with: its extent, scale and floor outline
/// (the app config's `maps[]`). Maps the config does not name are drawn
/// over their points' own extent at the J building's scale.
package struct DashboardMap: Sendable, Equatable {
    package var id: String
    package var description: String
    package var metersPerUnit: Double
    package var width: Double?
    package var height: Double?
    package var outline: [MapPoint]?
    /// The plan's picture (`maps[].floorPlan`, read by the CLI), under every plot of the map.
    package var floorPlan: SVGPlot.FloorPlan?

    package init(id: String, description: String = "", metersPerUnit: Double = MapScale.jBuilding.metersPerUnit,
                 width: Double? = nil, height: Double? = nil, outline: [MapPoint]? = nil, floorPlan: SVGPlot.FloorPlan? = nil) {
        self.id = id
        self.description = description
        self.metersPerUnit = metersPerUnit
        self.width = width
        self.height = height
        self.outline = outline
        self.floorPlan = floorPlan
    }

    /// The maps of an app config as JSON (the gateway serves it as such),
    /// read leniently: the config was checked when it was loaded, and a key
    /// the dashboard cannot use only costs a default.
    package static func fromAppConfig(_ config: JSONValue?) -> [String: DashboardMap] {
        var maps: [String: DashboardMap] = [:]
        for item in config?["maps"]?.arrayValue ?? [] {
            guard let id = item["id"]?.stringValue, !id.isEmpty else { continue }
            var map = DashboardMap(id: id, description: item["description"]?.stringValue ?? "")
            if let meters = item["scale"]?["meters"]?.doubleValue, let units = item["scale"]?["units"]?.doubleValue,
               meters > 0, units > 0 {
                map.metersPerUnit = meters / units
            }
            map.width = item["extent"]?["width"]?.doubleValue
            map.height = item["extent"]?["height"]?.doubleValue
            let corners = (item["outline"]?.arrayValue ?? []).compactMap { corner -> MapPoint? in
                guard let x = corner["x"]?.doubleValue, let y = corner["y"]?.doubleValue else { return nil }
                return MapPoint(x: x, y: y)
            }
            if corners.count >= 3 { map.outline = corners }
            maps[id] = map
        }
        return maps
    }
}
