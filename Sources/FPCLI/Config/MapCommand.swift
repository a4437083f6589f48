import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// `fprint map add|edit|remove`: the maps of the user's own app config.
struct MapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Add, change, remove or show maps (floor plans) in your own app config.",
        discussion: """
            Your own app config is $XDG_CONFIG_HOME/fprint/app-config.json. The first change makes it as a copy of the config in force (the shipped one, or --config's) with its scenarios, simulated environments and beacon registries; from then on it is the config in force unless --config, FPRINT_CONFIG or the config-url setting names another (`fprint config where` says which).

            A new map's units are its picture's pixels: x to the right, y down, from the top-left corner. The scale comes from two points of the picture and the metres between them (--calibrate) or from the picture's width in metres (--width-m). Every change is checked whole before it is written; a refused one changes nothing.

            Examples:
              fprint map add LAB1 --image plan.png --floor 1 --calibrate "120,80 920,80 20m"
              fprint map add LAB2 --image plan2.jpg --floor 2 --width-m 36 --outline "0,0 1200,0 1200,700 0,700"
              fprint map edit LAB1 --outline "40,40 980,40 980,610 40,610"
              fprint map show LAB1 -o lab1.png
              fprint map remove LAB2
            """,
        subcommands: [MapAdd.self, MapEdit.self, MapRemove.self, MapShow.self])
}

/// What a map is: its picture, floor, scale, outline and words.
struct MapPlanOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The floor plan's picture: PNG, JPEG or SVG (copied beside your app config).", valueName: "file"),
            completion: .file(extensions: ["png", "jpg", "jpeg", "svg"]))
    var image: String?
    @Option(help: "Floor number: maps of one building on different floors (floor detection, simulated floor losses).")
    var floor: Int?
    @Option(help: ArgumentHelp("Two points of the picture and the metres between them: \"x1,y1 x2,y2 12.5m\" (pixels).",
                               valueName: "points-and-distance"))
    var calibrate: String?
    @Option(name: .customLong("width-m"), help: "The picture's width in metres (instead of --calibrate).")
    var widthM: Double?
    @Option(help: ArgumentHelp("The floor's outline, its corners in map units: \"x,y x,y x,y …\" (none: remove it).",
                               valueName: "corners"))
    var outline: String?
    @Option(help: ArgumentHelp("Where the plan lies on the Earth: \"LAT,LONG [X,Y [BEARING]]\": the map point X,Y (default 0,0) at LAT,LONG, and the bearing of the plan's up from north in degrees (none: remove it).",
                               valueName: "lat,long x,y bearing"))
    var geo: String?
    @Option(help: "Where the building is (free text).") var location: String?
    @Option(name: .customLong("description"), help: "What the map shows (default for a new map: its id).") var about: String?

    /// Applies the options to a map's JSON; returns the picture to copy in
    /// (after the whole config has been checked) and what changed, for the user.
    func apply(to map: inout JSONObject, id: String, folder: UserConfigFolder) throws -> (picture: (from: String, to: String)?, changes: [String]) {
        if calibrate != nil && widthM != nil { throw CommandFailure("give --calibrate or --width-m, not both", .usage) }
        var changes: [String] = []
        var picture: (from: String, to: String)?
        if let image {
            let bytes: Data
            do { bytes = try Files.read(image) } catch {
                throw CommandFailure(error.description, FileManager.default.fileExists(atPath: image) ? .dataError : .notFound)
            }
            guard let read = ImageHeader(Array(bytes.prefix(1 << 20))) else {
                throw CommandFailure("\(image): not a PNG, JPEG or SVG picture (or its size in pixels cannot be read from it)", .dataError)
            }
            if read.kind == "jpg", !ImageHeader.jpegEnds(Array(bytes)) {
                throw CommandFailure("\(image): a JPEG cut short (no end-of-image marker after its last scan): not a whole picture", .dataError)
            }
            picture = (image, "\(folder.plansDirectory)/\(id).\(read.kind)")
            map["extent"] = .object(JSONObject(["width": .int(Int64(read.width)), "height": .int(Int64(read.height))]))
            map["floorPlan"] = .object(JSONObject(["image": .string("plans/\(id).\(read.kind)")]))
            changes.append("picture \(image) (\(read.kind.uppercased()), \(read.width) × \(read.height) px)")
        }
        let extent = map["extent"]?.objectValue.flatMap { e -> MapExtent? in
            guard let w = e["width"]?.doubleValue, let h = e["height"]?.doubleValue else { return nil }
            return MapExtent(width: w, height: h)
        }
        if let calibrate {
            let c = try PlanGeometryText.calibration(calibrate)
            if let extent {
                for p in [c.a, c.b] where !extent.contains(p) {
                    throw CommandFailure(String(format: "--calibrate: point %g,%g lies outside the picture (%g × %g px)", p.x, p.y, extent.width, extent.height), .usage)
                }
            }
            map["scale"] = .object(JSONObject(["meters": .double(c.meters), "units": .double(c.a.distance(to: c.b))]))
        } else if let widthM {
            guard widthM.isFinite, widthM > 0 else { throw CommandFailure("--width-m must be metres above 0", .usage) }
            guard let extent else { throw CommandFailure("--width-m needs the picture's width: give --image too", .usage) }
            map["scale"] = .object(JSONObject(["meters": .double(widthM), "units": .double(extent.width)]))
        }
        if calibrate != nil || widthM != nil || image != nil, let extent, let scale = map["scale"]?.objectValue,
           let meters = scale["meters"]?.doubleValue, let units = scale["units"]?.doubleValue {
            let width = extent.width * meters / units, height = extent.height * meters / units
            // A plan is a room or a building: a scale that makes it a hand's width or a town is a mistyped calibration.
            guard (1...5000).contains(width), (1...5000).contains(height) else {
                throw CommandFailure(String(format: "the scale makes the plan %.3g × %.3g m: check --calibrate's points and distance, or --width-m", width, height), .usage)
            }
            changes.append(String(format: "scale %g m per %g units: the plan is %.1f × %.1f m", meters, units, width, height))
        }
        if let outline {
            if outline == "none" {
                map["outline"] = nil
                changes.append("no outline")
            } else {
                let corners = try PlanGeometryText.points(outline, option: "--outline")
                if let why = Outline.problem(corners.map { (x: $0.x, y: $0.y) }) { throw CommandFailure("--outline: \(why)", .usage) }
                if let extent {
                    for (i, p) in corners.enumerated() where !extent.contains(p) {
                        throw CommandFailure(String(format: "--outline: corner %d (%g,%g) lies outside the map (0–%g, 0–%g)", i + 1, p.x, p.y, extent.width, extent.height), .usage)
                    }
                }
                map["outline"] = .array(corners.map { .object(JSONObject(["x": .double($0.x), "y": .double($0.y)])) })
                changes.append("outline of \(corners.count) corners")
            }
        }
        if let floor {
            map["floor"] = .int(Int64(floor))
            changes.append("floor \(floor)")
        }
        if let geo {
            if geo == "none" {
                map["geo"] = nil
                changes.append("no geo anchor")
            } else {
                let g = try PlanGeometryText.geo(geo)
                map["geo"] = g.json
                changes.append(String(format: "map point %g,%g at %.6f, %.6f, up %g° from north", g.at.x, g.at.y, g.lat, g.long, g.bearingDeg))
            }
        }
        if let location { map["location"] = .string(location) }
        if let about { map["description"] = .string(about) }
        return (picture, changes)
    }
}

/// Puts a checked map into the config: the picture copied in, then the config saved.
private func store(_ root: JSONObject, picture: (from: String, to: String)?, in own: OwnConfig) throws {
    // Checked before the picture is copied, so a refused change leaves nothing behind.
    do { _ = try AppConfig(json: .object(root), source: own.folder.appConfigPath) } catch {
        throw CommandFailure(error.description, .dataError)
    }
    if let picture {
        do { try Files.writeAtomically(try Files.read(picture.from), to: picture.to) } catch {
            throw CommandFailure(error.description, .ioError)
        }
    }
    try own.save(appConfig: root)
}

struct MapAdd: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a map from a floor plan's picture.",
        discussion: """
            Examples:
              fprint map add LAB1 --image plan.png --floor 1 --calibrate "120,80 920,80 20m"
              fprint map add LAB2 --image plan2.jpg --floor 2 --width-m 36 --outline "0,0 1200,0 1200,700 0,700"
            """)

    @Argument(help: "The new map's id (letters, digits, '.', '_', '-').") var id: String
    @OptionGroup var plan: MapPlanOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if plan.image == nil { throw ValidationError("a new map needs its picture: --image plan.png") }
        if plan.calibrate == nil && plan.widthM == nil {
            throw ValidationError("a new map needs a scale: --calibrate \"x1,y1 x2,y2 12.5m\" or --width-m METRES")
        }
        if plan.outline == "none" { throw ValidationError("--outline none removes an outline: a new map has none to remove") }
        if plan.geo == "none" { throw ValidationError("--geo none removes a geo anchor: a new map has none to remove") }
    }

    func perform() async throws {
        try OwnConfig.checkID(id)
        let own = try OwnConfig.open(Workspace(configOptions: configOptions))
        var root = try own.appConfig()
        var maps = OwnConfig.maps(root)
        if maps.contains(where: { $0["id"]?.stringValue == id }) {
            throw CommandFailure("map \(id) is already in \(own.folder.appConfigPath): change it with `fprint map edit \(id)`", .usage)
        }
        // ids differing only in case name one floor twice, and clash as plan file names on a case-insensitive disk.
        if let other = maps.compactMap({ $0["id"]?.stringValue }).first(where: { $0.lowercased() == id.lowercased() }) {
            throw CommandFailure("map \(id) differs from map \(other) only in case: choose another id, or change \(other) with `fprint map edit \(other)`", .usage)
        }
        var map = JSONObject(["id": .string(id), "location": .string(""), "description": .string(id), "mapURL": .string("")])
        let (picture, changes) = try plan.apply(to: &map, id: id, folder: own.folder)
        maps.append(map)
        root["maps"] = .array(maps.map { .object($0) })
        try store(root, picture: picture, in: own)
        Terminal.out("added map \(id): \(changes.joined(separator: "; "))")
    }
}

struct MapEdit: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a map: its picture, floor, scale, outline or words.",
        discussion: """
            A shipped map (J1NP…) is changed in your own copy; the shipped file stays as it was.

            Examples:
              fprint map edit LAB1 --outline "40,40 980,40 980,610 40,610"
              fprint map edit LAB1 --calibrate "100,100 100,700 15m"
              fprint map edit J1NP --floor 0
            """)

    @Argument(help: "The map's id.") var id: String
    @OptionGroup var plan: MapPlanOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        let p = plan
        if p.image == nil && p.floor == nil && p.calibrate == nil && p.widthM == nil && p.outline == nil && p.location == nil && p.about == nil
            && p.geo == nil {
            throw ValidationError("nothing to change: give --image, --floor, --calibrate, --width-m, --outline, --geo, --location or --description")
        }
    }

    func perform() async throws {
        let own = try OwnConfig.open(Workspace(configOptions: configOptions))
        var root = try own.appConfig()
        var maps = OwnConfig.maps(root)
        guard let index = maps.firstIndex(where: { $0["id"]?.stringValue == id }) else {
            let known = maps.compactMap { $0["id"]?.stringValue }.joined(separator: ", ")
            throw CommandFailure("no map \(id) in \(own.folder.appConfigPath) (maps: \(known)); add it with `fprint map add \(id)`", .notFound)
        }
        let (picture, changes) = try plan.apply(to: &maps[index], id: id, folder: own.folder)
        root["maps"] = .array(maps.map { .object($0) })
        try Self.checkRoutes(on: id, root: root, in: own)
        try store(root, picture: picture, in: own)
        Terminal.out("changed map \(id)" + (changes.isEmpty ? "" : ": \(changes.joined(separator: "; "))"))
    }
}

extension MapEdit {
    /// A changed outline or picture must keep every route on the map indoors:
    /// a walk along a route that leaves it would store documents outdoors.
    static func checkRoutes(on id: String, root: JSONObject, in own: OwnConfig) throws {
        guard let map = (try? AppConfig(json: .object(root), source: own.folder.appConfigPath))?.map(id: id) else { return }
        let scenarios = (try? ScenarioSet(json: .object(own.scenarios()), source: own.folder.scenariosPath))?.scenarios ?? []
        for scenario in scenarios {
            for leg in scenario.legs where leg.mapID == id {
                if let why = map.offRoute(leg.route.waypoints) {
                    throw CommandFailure("route \(scenario.scenarioID) would leave map \(id): \(why); change or remove the route first (`fprint scenario remove \(scenario.scenarioID)`)", .usage)
                }
            }
        }
    }
}

struct MapRemove: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a map from your own app config (its stored measurements stay).",
        discussion: """
            Refused while a scenario walks on the map (remove those first with `fprint scenario remove`).

            Example:
              fprint map remove LAB2
            """)

    @Argument(help: "The map's id.") var id: String
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let own = try OwnConfig.open(Workspace(configOptions: configOptions))
        var root = try own.appConfig()
        let maps = OwnConfig.maps(root)
        guard let map = maps.first(where: { $0["id"]?.stringValue == id }) else {
            throw CommandFailure("no map \(id) in \(own.folder.appConfigPath)", .notFound)
        }
        let scenarios = (try? ScenarioSet(json: .object(own.scenarios()), source: own.folder.scenariosPath))?.scenarios ?? []
        let walking = scenarios.filter { $0.legs.contains { $0.mapID == id } }.map(\.scenarioID)
        if !walking.isEmpty {
            throw CommandFailure("\(walking.joined(separator: ", ")) \(walking.count == 1 ? "walks" : "walk") on map \(id): remove \(walking.count == 1 ? "it" : "them") first (`fprint scenario remove \(walking[0])`)", .usage)
        }
        root["maps"] = .array(maps.filter { $0["id"]?.stringValue != id }.map { .object($0) })
        try own.save(appConfig: root)
        // The picture fprint copied in is the map's own; remove it with the map.
        if let image = map["floorPlan"]?.objectValue?["image"]?.stringValue, image.hasPrefix("plans/") {
            try? FileManager.default.removeItem(atPath: "\(own.folder.directory)/\(image)")
        }
        Terminal.out("removed map \(id); measurements stored on it stay in the database")
    }
}
