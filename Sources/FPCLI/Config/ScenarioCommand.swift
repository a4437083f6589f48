import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// `fprint scenario add|remove`: the walking routes of the user's own app config.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Add or remove scenarios (routes to walk) in your own app config.",
        discussion: """
            Scenarios live beside your own app config (scenarios.json; `fprint map` says how it is made). `fprint scenarios` lists them.

            Examples:
              fprint scenario add lab-loop --map LAB1 --points "100,100 900,100 900,600 100,600 100,100"
              fprint scenario add lab-up --map LAB1 --points "100,100 500,100" --then "LAB2:500,120 900,120" --via stairs
              fprint scenario add corridor --map LAB1 --points-file corridor.csv --name "Corridor, west to east"
              fprint scenario remove lab-up
            """,
        subcommands: [ScenarioAdd.self, ScenarioRemove.self])
}

struct ScenarioAdd: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a route: waypoints on a map, and optional legs on other floors.",
        discussion: """
            Waypoints are map units ("x,y x,y …"; for a map made by `fprint map add`, its picture's pixels) and must lie on the map (its extent and outline). --points-file reads one point per line (x,y or x y; a header line and # comments are skipped). Each --then continues on another map ("MAP:x,y x,y …"), reached by the --via given in the same order (stairs, the default, or lift).

            Examples:
              fprint scenario add lab-loop --map LAB1 --points "100,100 900,100 900,600 100,600 100,100"
              fprint scenario add lab-up --map LAB1 --points "100,100 500,100" --then "LAB2:500,120 900,120" --via stairs
            """)

    @Argument(help: "The scenario's id (letters, digits, '.', '_', '-').") var id: String
    @Option(help: "The map of the first leg.") var map: String
    @Option(help: ArgumentHelp("Waypoints in map units: \"x,y x,y …\".", valueName: "points")) var points: String?
    @Option(name: .customLong("points-file"), help: "A file of waypoints, one x,y per line.", completion: .file())
    var pointsFile: String?
    @Option(help: "A name to show (default: the id).") var name: String?
    @Option(name: .customLong("then"), help: ArgumentHelp("A further leg on another map: \"MAP:x,y x,y …\" (repeatable).", valueName: "leg"))
    var then: [String] = []
    @Option(help: "How each --then leg is reached: stairs or lift (repeatable, in order; default stairs).") var via: [String] = []
    @Flag(help: "Print the added scenario as JSON.") var json = false
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if (points == nil) == (pointsFile == nil) { throw ValidationError("give the waypoints with --points or --points-file (one of them)") }
        if via.count > then.count { throw ValidationError("\(via.count) --via for \(then.count) --then leg(s): one --via per --then at most") }
        for v in via where FloorTransition(rawValue: v) == nil { throw ValidationError("--via \(v): use stairs or lift") }
        if id.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("a scenario id cannot be empty") }
    }

    func perform() async throws {
        try OwnConfig.checkID(id, what: "route id")  // as a map id: it names files and URLs too
        let ws = Workspace(configOptions: configOptions)
        let own = try OwnConfig.open(ws)
        let config: AppConfig
        do { config = try AppConfig(json: .object(own.appConfig()), source: own.folder.appConfigPath) } catch {
            throw CommandFailure("\(error)", .dataError)
        }
        var legs: [(map: MapInfo, points: [MapPoint], via: FloorTransition?)] = []
        let first = try pointsFile.map { try Self.readPoints(file: $0) } ?? PlanGeometryText.points(points ?? "", option: "--points")
        legs.append((try Self.map(map, in: config), first, nil))
        for (i, leg) in then.enumerated() {
            guard let colon = leg.firstIndex(of: ":") else {
                throw CommandFailure("--then \"\(leg)\": expected MAP:x,y x,y …", .usage)
            }
            let legMap = try Self.map(String(leg[..<colon]), in: config)
            let legPoints = try PlanGeometryText.points(String(leg[leg.index(after: colon)...]), option: "--then \(i + 1)")
            legs.append((legMap, legPoints, FloorTransition(rawValue: i < via.count ? via[i] : "stairs")))
        }
        for (i, leg) in legs.enumerated() {
            let option = i == 0 ? (pointsFile ?? "--points") : "--then \(i)"
            guard leg.points.count >= 2 else { throw CommandFailure("\(option): a route needs at least 2 waypoints, got \(leg.points.count)", .usage) }
            if let why = leg.map.offRoute(leg.points) { throw CommandFailure("\(option): \(why)", .usage) }
        }
        var root = try own.scenarios()
        var list = root["scenarios"]?.arrayValue ?? []
        if list.contains(where: { $0.objectValue?["scenarioID"]?.stringValue == id }) {
            throw CommandFailure("scenario \(id) is already in \(own.folder.scenariosPath): remove it first (`fprint scenario remove \(id)`)", .usage)
        }
        func pointsJSON(_ points: [MapPoint]) -> JSONValue { .array(points.map { .object(JSONObject(["X": .double($0.x), "Y": .double($0.y)])) }) }
        var entry = JSONObject(["scenarioID": .string(id), "name": .string(name ?? id), "mapID": .string(legs[0].map.id),
                                "points": pointsJSON(legs[0].points)])
        if legs.count > 1 {
            entry["then"] = .array(legs.dropFirst().map { leg in
                .object(JSONObject(["mapID": .string(leg.map.id), "via": .string(leg.via?.rawValue ?? "stairs"), "points": pointsJSON(leg.points)]))
            })
        }
        list.append(.object(entry))
        root["scenarios"] = .array(list)
        try own.save(scenarios: root)
        let pace = WalkPace(correction: try ws.settings().speedCorrection)
        let meters = legs.map { leg in (Route(waypoints: leg.points)?.length ?? 0) * leg.map.scale.metersPerUnit }
        let total = meters.reduce(0, +)
        if json {
            entry["lengthMeters"] = .double((total * 10).rounded() / 10)
            entry["walkSeconds"] = .double((total / pace.metersPerSecond).rounded())
            Terminal.out(CanonicalJSON.string(.object(entry)))
        } else {
            let parts = zip(legs, meters).map { leg, m in
                (leg.via.map { "\($0.rawValue) to " } ?? "") + String(format: "%@ (%d points, %.1f m)", leg.map.id, leg.points.count, m)
            }
            Terminal.out(String(format: "added scenario %@ on %@: %.1f m, about %.0f s at %.2f m/s", id, parts.joined(separator: ", then "), total,
                                total / pace.metersPerSecond, pace.metersPerSecond))
        }
    }

    static func map(_ id: String, in config: AppConfig) throws -> MapInfo {
        guard let m = config.map(id: id) else {
            throw CommandFailure("unknown map '\(id)' (maps: \(config.maps.map(\.id).joined(separator: ", ")))", .notFound)
        }
        return m
    }


    /// One point per line: "x,y", "x;y" or "x y"; blank lines, # comments and a header line are skipped.
    static func readPoints(file: String) throws -> [MapPoint] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw CommandFailure("\(file): cannot read the waypoints file", FileManager.default.fileExists(atPath: file) ? .dataError : .notFound)
        }
        var points: [MapPoint] = []
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " || $0 == "\t" }).map(String.init)
            let numbers = fields.compactMap(Double.init)
            if numbers.count != fields.count && points.isEmpty && n == 0 { continue }  // a header
            guard fields.count == 2, numbers.count == 2, numbers.allSatisfy(\.isFinite) else {
                throw CommandFailure("\(file):\(n + 1): \"\(line)\" is not a waypoint (x,y)", .dataError)
            }
            points.append(MapPoint(x: numbers[0], y: numbers[1]))
        }
        return points
    }
}

struct ScenarioRemove: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a scenario from your own app config.",
        discussion: "Example:\n  fprint scenario remove lab-up")

    @Argument(help: "The scenario's id.") var id: String
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let own = try OwnConfig.open(Workspace(configOptions: configOptions))
        var root = try own.scenarios()
        let list = root["scenarios"]?.arrayValue ?? []
        let kept = list.filter { $0.objectValue?["scenarioID"]?.stringValue != id }
        guard kept.count < list.count else { throw CommandFailure("no scenario \(id) in \(own.folder.scenariosPath)", .notFound) }
        root["scenarios"] = .array(kept)
        try own.save(scenarios: root)
        Terminal.out("removed scenario \(id)")
    }
}
