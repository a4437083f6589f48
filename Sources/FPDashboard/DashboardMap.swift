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
}
