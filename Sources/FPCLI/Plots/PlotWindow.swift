import FPAnalysis

/// Where a map's plot starts. A map of the app config starts at (0, 0),
/// where its plan's coordinates do; an imported dataset's map is only its
/// data, which may lie 15 m (UJI's library) or 4,800 km (UJIIndoorLoc's
/// projected metres) from 0: its plot starts at the whole metre a metre
/// before its data, so the data fill the plot and the axes still say where.
struct PlotWindow {
    /// The top left corner, map units.
    var origin: (x: Double, y: Double)
    var metersPerUnit: Double

    static func of(_ points: [(x: Double, y: Double)], configured: Bool, metersPerUnit: Double) -> PlotWindow {
        guard !configured, let minX = points.map(\.x).min(), let minY = points.map(\.y).min() else {
            return PlotWindow(origin: (0, 0), metersPerUnit: metersPerUnit)
        }
        // Data starting within 2 m of 0 keep 0: an axis from 0 reads best.
        func start(_ least: Double) -> Double {
            let metres = least * metersPerUnit
            return metres >= 0 && metres < 2 ? 0 : ((metres - 1).rounded(.down)) / metersPerUnit
        }
        return PlotWindow(origin: (start(minX), start(minY)), metersPerUnit: metersPerUnit)
    }

    func shift(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) { (p.x - origin.x, p.y - origin.y) }
    func shift(_ points: [(x: Double, y: Double)]?) -> [(x: Double, y: Double)]? { points?.map(shift) }
    func shift(_ b: SVGPlot.MapBeacon) -> SVGPlot.MapBeacon { SVGPlot.MapBeacon(x: b.x - origin.x, y: b.y - origin.y, label: b.label) }
    func shift(_ p: SVGPlot.HeatPoint) -> SVGPlot.HeatPoint {
        SVGPlot.HeatPoint(x: p.x - origin.x, y: p.y - origin.y, rssi: p.rssi, label: p.label)
    }

    /// The metres at the plot's top left corner, for its axes.
    var axisOrigin: (x: Double, y: Double) { (origin.x * metersPerUnit, origin.y * metersPerUnit) }
}

/// A map plot's frame: its window, its walls moved with it, and its size,
/// reaching every drawn mark (`reached`, in map units before the shift).
/// One place for the three map plots (heatmap, coverage, map show).
struct MapPlotFrame {
    var window: PlotWindow
    var walls: [(x: Double, y: Double)]?
    var width: Double
    var height: Double

    init(reached: [(x: Double, y: Double)], walls corners: [(x: Double, y: Double)]?, configured: Bool,
         metersPerUnit: Double, floorPlan: SVGPlot.FloorPlan?, extent: (width: Double, height: Double)?) {
        window = PlotWindow.of(reached + (corners ?? []), configured: configured, metersPerUnit: metersPerUnit)
        walls = window.shift(corners)
        (width, height) = SVGPlot.mapExtent(reached.map(window.shift) + (walls ?? []), floorPlan: floorPlan,
                                            extent: extent, metersPerUnit: metersPerUnit)
    }
}
