import ArgumentParser
import FPConfig
import FPCore
import FPStore
import Foundation

struct Maps: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "maps",
        abstract: "List the maps the app config offers, and the maps only the store knows.",
        discussion: """
            A map the store holds measurements of but the app config does not name (an imported dataset's, or one measured with another config) is listed after the config's maps with its number of measurements; `fprint map show ID` shows it.

            Examples:
              fprint maps
              fprint maps --json
            """)

    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let ws = Workspace(configOptions: configOptions)
        let loaded = try ws.loadConfig()
        // Maps do not need the scenarios: a broken scenarios file is a warning here.
        let scenarios = (try? loaded.scenarios)?.scenarios
        if case .failure(let error) = loaded.scenarioLoad { Terminal.err("warning: scenarios not shown: \(error)") }
        let storeOnly = try Self.storeOnlyMaps(ws, configured: Set(loaded.appConfig.maps.map(\.id)))
        if json {
            let maps: [JSONValue] = loaded.appConfig.maps.map { m in
                let scale = ws.scale(of: m)
                let names = scenarios?.filter { $0.mapID == m.id }.map { JSONValue.string($0.scenarioID) }
                return [
                    "id": .string(m.id), "location": .string(m.location), "description": .string(m.description),
                    "mapURL": .string(m.mapURL),
                    "scale": ["meters": .double(scale.meters), "units": .double(scale.units)],
                    "extent": m.extent.map { ["width": .double($0.width), "height": .double($0.height)] } ?? .null,
                    "scenarios": names.map(JSONValue.array) ?? .null,
                    "simulatedEnvironment": ws.environmentPath(map: m.id, loaded: loaded).map { JSONValue.string($0) } ?? .null,
                    "simulation": .string(simulation(m.id, ws, loaded)),
                    "source": "config",
                ]
            }
            let stored: [JSONValue] = storeOnly.map { ["id": .string($0.map), "source": "store", "documents": .int(Int64($0.documents))] }
            Terminal.out(CanonicalJSON.string(.array(maps + stored)))
            return
        }
        let rows = loaded.appConfig.maps.map { m -> [String] in
            let scale = ws.scale(of: m)
            let n = scenarios.map { list in String(list.filter { $0.mapID == m.id }.count) } ?? "?"
            return [m.id, m.description, String(format: "%g m = %g units", scale.meters, scale.units),
                    m.extent.map { String(format: "%g × %g", $0.width, $0.height) } ?? "not given", n,
                    simulation(m.id, ws, loaded)]
        }
        let stored = storeOnly.map { m -> [String] in
            [m.map, "in the store only: \(Terminal.counted(m.documents, "measurement")) (not in the app config)", "", "", "", "no"]
        }
        for line in Terminal.table(["MAP", "DESCRIPTION", "SCALE", "EXTENT", "SCENARIOS", "SIMULATION"], rows + stored) {
            Terminal.out(line)
        }
    }

    /// Maps the store holds measurements of that the app config does not name; none without a database.
    private static func storeOnlyMaps(_ ws: Workspace, configured: Set<String>) throws -> [(map: String, documents: Int)] {
        guard FileManager.default.fileExists(atPath: ws.databasePath) else { return [] }
        do {
            return try ws.openStore(.read).documentsPerMap().filter { !configured.contains($0.map) }
        } catch let failure as CommandFailure where failure.status == .notFound {
            return []
        }
    }

    /// What `--simulate` simulates on a map: `yes` (a simulated environment
    /// of its own), `beacons` (its beacon registry, BLE only) or `no`.
    private func simulation(_ map: String, _ ws: Workspace, _ loaded: LoadedConfig) -> String {
        if ws.environmentPath(map: map, loaded: loaded) != nil { return "yes" }
        return BeaconRegistryFile.registryPath(map: map, config: loaded, paths: ws.paths) != nil ? "beacons" : "no"
    }
}

struct Scenarios: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenarios",
        abstract: "List the walk scenarios the config offers.",
        discussion: """
            Shows each route's length in metres and how long it takes at the current walking pace. A route that goes on to other floors (`then` legs) shows its maps in order and its whole length, and is listed under each map it visits (--map); `walk` records every floor's part on its own map, `track --simulate` follows it all.

            Examples:
              fprint scenarios
              fprint scenarios --map J1NP --json
            """)

    @Option(help: "Only scenarios that walk on this map (on any of their floors).") var map: String?
    @Flag(help: "Print JSON.") var json = false
    @OptionGroup var configOptions: ConfigOptions

    func perform() async throws {
        let ws = Workspace(configOptions: configOptions)
        let loaded = try ws.loadConfig()
        let pace = WalkPace(correction: try ws.settings().speedCorrection)
        if let map { _ = try ws.map(map, in: loaded) }
        let list = try Workspace.scenarios(of: loaded).scenarios.filter { s in map == nil || s.legs.contains { $0.mapID == map } }
        var out: [JSONValue] = []
        var rows: [[String]] = []
        func meters(_ route: Route?, on map: String) -> Double {
            let scale = (try? ws.map(map, in: loaded)).map(ws.scale(of:)) ?? .jBuilding
            return (route?.length ?? 0) * scale.metersPerUnit
        }
        func rounded(_ m: Double) -> JSONValue { .double((m * 10).rounded() / 10) }
        for s in list {
            let first = meters(Route(waypoints: s.points), on: s.mapID)
            let legs = s.then.map { (leg: $0, meters: meters($0.route, on: $0.mapID)) }
            let length = first + legs.reduce(0) { $0 + $1.meters }
            let seconds = length / pace.metersPerSecond
            var entry: JSONObject = [
                "scenarioID": .string(s.scenarioID), "name": .string(s.name), "mapID": .string(s.mapID),
                "points": .array(s.points.map { ["X": .double($0.x), "Y": .double($0.y)] }),
                "lengthMeters": rounded(length), "walkSeconds": .double(seconds.rounded()),
            ]
            if !legs.isEmpty {
                entry["then"] = .array(legs.map { leg, m in
                    ["mapID": .string(leg.mapID), "points": .array(leg.route.waypoints.map { ["X": .double($0.x), "Y": .double($0.y)] }),
                     "lengthMeters": rounded(m), "via": .string(leg.via.rawValue)]
                })
            }
            out.append(.object(entry))
            let points = s.points.count + legs.reduce(0) { $0 + $1.leg.route.waypoints.count }
            rows.append([s.scenarioID, ([s.mapID] + legs.map(\.leg.mapID)).joined(separator: "→"), s.name, String(points),
                         String(format: "%.1f", length), String(format: "%.0f", seconds)])
        }
        if json {
            Terminal.out(CanonicalJSON.string(.array(out)))
        } else {
            for line in Terminal.table(["SCENARIO", "MAP", "NAME", "POINTS", "METRES", "SECONDS"], rows,
                                       rightAligned: [3, 4, 5]) { Terminal.out(line) }
        }
    }
}

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show, change or reset the persisted settings.",
        discussion: """
            Settings live in $XDG_CONFIG_HOME/fprint/settings.json.

            Keys:
              config-url           app config file or URL (empty: the shipped Config/app-config.json)
              radios               radios to record, comma-separated: ble,wifi,cell,location (at least one)
              measurement-seconds  static measurement length, 5–120 (default 20)
              speed-correction     walking-speed correction, −10…+10 (default 0)

            `fprint config where` says which app config is in force and why: --config, FPRINT_CONFIG, the config-url setting, your own ($XDG_CONFIG_HOME/fprint/app-config.json, made by `fprint map` and `fprint scenario`) or the shipped one.

            Examples:
              fprint config get
              fprint config where
              fprint config set measurement-seconds 30
              fprint config set radios ble,wifi
              fprint config reset
            """,
        subcommands: [Get.self, Set.self, Reset.self, Where.self])

    struct Where: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "where", abstract: "Say which app config is in force, and why.")
        @Flag(help: "Print JSON.") var json = false
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let ws = Workspace(configOptions: configOptions)
            let location = try ws.configLocation(), origin = try ws.configOrigin()
            let own = UserConfigFolder(paths: ws.paths)
            let loaded = try ws.loadConfig()
            if json {
                Terminal.out(CanonicalJSON.string(.object(JSONObject([
                    "appConfig": .string(loaded.source), "scenarios": .string(loaded.scenariosSource), "chosenBy": .string(origin),
                    "own": .string(own.appConfigPath), "ownExists": .bool(own.exists),
                    "maps": .array(loaded.appConfig.maps.map { .string($0.id) }),
                ]))))
                return
            }
            Terminal.out("app config: \(loaded.source) (\(origin)\(location == loaded.source ? "" : ": \(location)"))")
            Terminal.out("scenarios:  \(loaded.scenariosSource)")
            Terminal.out("maps:       \(loaded.appConfig.maps.map(\.id).joined(separator: ", "))")
            Terminal.out("your own:   \(own.appConfigPath)" + (own.exists ? "" : " (not made yet: `fprint map add` or `fprint map edit` makes it)"))
        }
    }

    struct Get: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one setting, or all of them.")
        @Argument(help: "Setting key (omit for all).") var key: String?
        @Flag(help: "Print JSON.") var json = false

        func perform() async throws {
            let store = Workspace().settingsStore()
            let settings = try Workspace().settings()
            let keys: [SettingKey]
            if let key {
                do { keys = [try SettingKey(name: key)] } catch { throw CommandFailure("\(error)", .usage) }
            } else {
                keys = Settings.keys
            }
            var object: JSONObject = [:]
            for k in keys {
                let value = settings.value(of: k)
                object[k.name] = .string(value)
                if !json { Terminal.out(key == nil ? "\(k.name) = \(value)" : value) }
            }
            if json { Terminal.out(CanonicalJSON.string(.object(object))) }
            if !json && key == nil { Terminal.err("(\(store.path))") }
        }
    }

    struct Set: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Change one setting.",
                                                            usage: "fprint config set <key> <value>")
        @Argument(help: "Setting key.") var key: String
        // An array that takes what looks like an option: `config set speed-correction -2` is a value, not a flag.
        @Argument(parsing: .allUnrecognized, help: ArgumentHelp("New value (negative numbers too).", valueName: "value"))
        var value: [String] = []

        func validate() throws {
            guard value.count == 1 else { throw ValidationError("config set takes one key and one value, got \(value.count) values") }
        }

        func perform() async throws {
            let store = Workspace().settingsStore()
            do { try store.set(key, value[0]) } catch { throw CommandFailure("\(error)", .usage) }
            Terminal.err("\(key) = \(try store.get(key))")
        }
    }

    struct Reset: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "reset", abstract: "Restore every setting to its default.")

        func perform() async throws {
            do { try Workspace().settingsStore().reset() } catch { throw CommandFailure("\(error)", .ioError) }
            Terminal.err("settings reset to defaults")
        }
    }
}
