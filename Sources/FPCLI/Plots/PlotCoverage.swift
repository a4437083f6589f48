import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

extension Plot {
    struct CoveragePlot: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "coverage",
            abstract: "Beacons heard at or above a threshold, per cell of a map; cells with fewer than 3 marked as gaps.",
            discussion: """
                Counts as `fprint coverage` does (registry beacons when the map has a registry, else every BLE transmitter; median RSSI ≥ --min-rssi), on square cells of --cell metres: a cell shows the fewest beacons any of its points hears, and one under 3 (what trilateration needs) is a gap, outlined and hatched. Cells nobody measured stay blank.

                Examples:
                  fprint plot coverage --map J3NP -o coverage.svg
                  fprint plot coverage --map J3NP --cell 4 --min-rssi=-85 -o coverage.png
                """)
        @OptionGroup var filters: FilterOptions
        @Option(name: .customLong("min-rssi"), parsing: .unconditional, help: "Weakest median RSSI that counts (dBm).")
        var minRSSI = -90.0
        @Option(help: "Cell side in metres.") var cell = 2.0
        @Option(help: "Beacon registry file (default: beacons/<map>.json in your config folder or beside the app config).", completion: .file())
        var beacons: String?
        @OptionGroup var out: Output
        @OptionGroup var floorPlan: FloorPlanOptions
        @OptionGroup var outline: OutlineOptions
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws {
            if filters.map == nil { throw ValidationError("a coverage plot is of one map: give --map") }
            if !(cell.isFinite && cell >= 0.25) { throw ValidationError("--cell must be at least 0.25 m") }
            if !(minRSSI.isFinite && minRSSI <= 0) { throw ValidationError("--min-rssi must be a dBm value ≤ 0") }
        }

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let fps = try AnalysisInput.fingerprints(try ws.openStore(.read), filters)
            guard !fps.isEmpty else { throw CommandFailure("no measurements match the filters", .notFound) }
            try Coverage.requireBLE(fps)
            let map = filters.map ?? ""
            let config = try ws.configIfAny()
            let registry = try BeaconRegistryFile.load(map: map, explicit: beacons, config: config, paths: ws.paths)
            let counted = Coverage.points(registry.map { r in fps.map(r.resolving) } ?? fps, minRSSI: minRSSI, beacons: registry?.keys)
            // An imported dataset's map is in metres (its fingerprints say so), not the J building's units.
            let metersPerUnit = try AnalysisInput.scales(ws, of: fps)[map] ?? MapScale.jBuilding.metersPerUnit
            let corners = try outline.corners(map: map, config: config)
            let plan = try floorPlan.plan(map: map, config: config)
            let frame = MapPlotFrame(reached: fps.map(\.exactPoint), walls: corners, configured: config?.appConfig.map(id: map) != nil,
                                     metersPerUnit: metersPerUnit, floorPlan: plan,
                                     extent: config?.appConfig.map(id: map)?.extent.map { ($0.width, $0.height) })
            let points = zip(fps, counted).map { fp, c in
                let at = frame.window.shift(fp.exactPoint)
                return (x: at.x, y: at.y, beacons: c.heard.count)
            }
            if out.sparkline {
                Terminal.out(SVGPlot.sparkline(points.map { Double($0.beacons) }))
                return
            }
            let cells = SVGPlot.coverageCells(points, cell: cell / metersPerUnit)
            let gaps = cells.filter { $0.beacons < Coverage.needed }.count
            try out.write(SVGPlot.coverage(
                title: "Beacon coverage on \(map) (≥ \(Int(minRSSI)) dBm, \(String(format: "%g", cell)) m cells)", points: points,
                cells: cells, cell: cell / metersPerUnit, needed: Coverage.needed, mapWidth: frame.width, mapHeight: frame.height,
                metersPerUnit: metersPerUnit, outline: frame.walls,
                floorPlan: plan, axisOrigin: frame.window.axisOrigin), credits: fps.datasetCredits)
            Terminal.err("\(Terminal.counted(cells.count, "cell")) measured, \(gaps) with fewer than \(Coverage.needed) beacons")
        }
    }
}
