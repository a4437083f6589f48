import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

/// `fprint map show ID`: what a map is (scale, extent, outline, picture) and
/// what lies on it (measured points, registry beacons, routes); `-o` draws it.
struct MapShow: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: MapShowArguments.abstract, discussion: MapShowArguments.discussion)
    @OptionGroup var arguments: MapShowArguments
    func perform() async throws { try arguments.perform() }
}

struct MapShowArguments: ParsableArguments {
    static let abstract = "A map: its scale, extent, outline and floor plan, the points measured on it, its beacons and routes; -o draws it."
    static let discussion = """
        The drawing (-o FILE.png through librsvg's rsvg-convert, or FILE.svg) puts the map's floor-plan picture under its outline (or its extent's rectangle), with axes and a scale bar in metres, every measured position of the store (one dot each), the registry beacons (magenta diamonds, labelled by name or the address's last two bytes) and each scenario's route on this map (a line of its own colour, dash and marker from a dot at its start, side by side with a route sharing its corridor, named there and in the legend).

        Examples:
          fprint map show J3NP
          fprint map show J3NP --json
          fprint map show J3NP -o j3np.png
          fprint map show ble-flat-robot --outline ble-flat-robot/layout.csv -o flat.png

        A map the app config does not name but the store holds an imported dataset's measurements of (fprint import) is shown in metres, over the extent its data reaches, with the dataset's credit under the drawing; --outline gives its walls.
        """

    @Argument(help: "The map's id (`fprint maps` lists them).") var id: String
    @Option(name: [.short, .long], help: "Draw the map into this file: .png (rendered by rsvg-convert) or .svg.", completion: .file())
    var output: String?
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var floorPlanOptions: FloorPlanOptions
    @OptionGroup var outline: OutlineOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if let output, !["png", "svg"].contains((output as NSString).pathExtension.lowercased()) {
            throw ValidationError("-o \(output): the drawing is a .png or an .svg file")
        }
    }

    func perform() throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let loaded = try ws.loadConfig()
        // A dataset's map is not in the app config: the store's measurements say what it is.
        let imported = loaded.appConfig.map(id: id) == nil ? try ImportedMap.load(ws, id: id) : nil
        var map = try imported?.info ?? ws.map(id, in: loaded)
        if let walls = try outline.corners(map: id, config: loaded) { map.outline = walls.map { MapPoint(x: $0.x, y: $0.y) } }
        let scenarios = (try? loaded.scenarios)?.scenarios ?? []
        if case .failure(let error) = loaded.scenarioLoad { Terminal.err("warning: scenarios not shown: \(error)") }
        let routes = scenarios.flatMap { s in
            s.legs.filter { $0.mapID == id }.map { (scenario: s, route: $0.route) }
        }
        // A route over several floors: its whole length beside this floor's part.
        let wholeMeters = Dictionary(routes.map { r in
            (r.scenario.scenarioID, r.scenario.legs.reduce(0.0) { sum, leg in
                sum + leg.route.length * (loaded.appConfig.map(id: leg.mapID)?.scale ?? map.scale).metersPerUnit
            })
        }, uniquingKeysWith: { a, _ in a })
        let registryPath = BeaconRegistryFile.registryPath(map: id, config: loaded, paths: ws.paths)
        let registry = try BeaconRegistryFile.load(map: id, explicit: nil, config: loaded, paths: ws.paths)
        let measured = try imported.map { ($0.documents, $0.points) } ?? Self.measuredPoints(ws, map: id)
        if let output {
            let plan = try floorPlanOptions.plan(map: id, config: loaded)
            try draw(map, plan: plan, points: measured?.points ?? [], registry: registry, routes: routes,
                     imported: imported != nil, credits: imported?.credits ?? [], to: output)
            return
        }
        // Text and JSON show a missing or broken picture rather than failing on it.
        let plan: Result<SVGPlot.FloorPlan?, CommandFailure>
        do { plan = .success(try FloorPlanFile.load(map: id, config: loaded)) } catch let f as CommandFailure {
            plan = .failure(f)
        }
        let facts = MapFacts(map: map, plan: plan, measured: measured, database: ws.databasePath,
                             registry: registry, registryPath: registryPath, routes: routes, wholeMeters: wholeMeters)
        if json { Terminal.out(CanonicalJSON.string(.object(facts.json))) } else { for line in facts.text { Terminal.out(line) } }
    }

    private func draw(_ map: MapInfo, plan: SVGPlot.FloorPlan?, points: [(x: Double, y: Double, count: Int)],
                      registry: BeaconRegistry?, routes: [(scenario: Scenario, route: Route)], imported: Bool, credits: [String],
                      to output: String) throws {
        let beacons = (registry?.entries ?? []).map {
            SVGPlot.MapBeacon(x: $0.x, y: $0.y, label: $0.name ?? $0.shortLabel)
        }
        let drawn = routes.map { r in
            SVGPlot.MapRoute(name: r.scenario.name.isEmpty ? r.scenario.scenarioID : r.scenario.name,
                             points: r.route.waypoints.map { (x: $0.x, y: $0.y) })
        }
        // An imported dataset's plot starts where its data do (PlotWindow).
        let reached = points.map { (x: $0.x, y: $0.y) } + beacons.map { (x: $0.x, y: $0.y) } + drawn.flatMap(\.points)
        let frame = MapPlotFrame(reached: reached, walls: map.outline?.map { (x: $0.x, y: $0.y) }, configured: !imported,
                                 metersPerUnit: map.scale.metersPerUnit, floorPlan: plan,
                                 extent: map.extent.map { ($0.width, $0.height) })
        let window = frame.window
        let scale = map.scale
        let title = "\(map.id)" + (map.floor.map { " (floor \($0))" } ?? "") + (map.description.isEmpty ? "" : ": \(map.description)")
        let drawing = SVGPlot.mapOverview(
            title: title, mapWidth: frame.width, mapHeight: frame.height, metersPerUnit: scale.metersPerUnit,
            outline: frame.walls, floorPlan: plan,
            points: points.map { p in let at = window.shift((p.x, p.y)); return (x: at.x, y: at.y, count: p.count) },
            beacons: beacons.map(window.shift),
            routes: drawn.map { SVGPlot.MapRoute(name: $0.name, points: $0.points.map(window.shift)) }, axisOrigin: window.axisOrigin)
        let svg = SVGPlot.credited(drawing, lines: credits)
        if (output as NSString).pathExtension.lowercased() == "png" {
            try PNGRenderer.render(svg, to: output)
        } else {
            do { try Files.writeAtomically(Data(svg.utf8), to: output) } catch { throw CommandFailure(error.description, .ioError) }
        }
        Terminal.err("wrote \(output): \(Terminal.counted(points.count, "measured point")), \(Terminal.counted(beacons.count, "beacon")), "
            + Terminal.counted(drawn.count, "route"))
    }

    /// Each measured position of the map with its number of documents; nil when there is no database.
    static func measuredPoints(_ ws: Workspace, map: String) throws -> (documents: Int, points: [(x: Double, y: Double, count: Int)])? {
        let store: SQLiteDocumentStore
        do { store = try ws.openStore(.read) } catch let f as CommandFailure where f.status == .notFound { return nil }
        let summaries = try store.list(ListQuery(level: map))
        let measured = places(summaries, precision: 0.01) { ($0.x, $0.y) }.map { ($0.x, $0.y, $0.members.count) }
        return (summaries.count, measured)
    }
}
