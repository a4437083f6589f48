import FPCore
import Foundation

/// The user's own app config, `$XDG_CONFIG_HOME/fprint/app-config.json`,
/// which `fprint map` and `fprint scenario` change.
///
/// The first change makes it as a copy of the local config in force with
/// everything beside it that commands read (the scenarios, `environments/`,
/// `beacons/`, floor-plan pictures), so it stands alone and the shipped files
/// are never written. From then on it is the config in force unless
/// `--config`, `FPRINT_CONFIG` or the `config-url` setting names another.
/// Every change is checked whole (the app config and its scenarios parse
/// together) before it replaces a file, atomically: a refused change leaves
/// the files as they were.
package struct UserConfigFolder: Sendable {
    package let directory: String

    package init(paths: FPPaths) { directory = paths.configDirectory }

    package var appConfigPath: String { "\(directory)/app-config.json" }
    package var scenariosPath: String { "\(directory)/scenarios.json" }
    /// Where `fprint map add` keeps the plans' pictures.
    package var plansDirectory: String { "\(directory)/plans" }
    package var exists: Bool { FileManager.default.fileExists(atPath: appConfigPath) }

    /// True when `loaded` is this folder's app config.
    package func isInForce(_ loaded: LoadedConfig) -> Bool {
        loaded.location == .file(ConfigLocation.normalised(appConfigPath))
    }

    /// Makes the folder from the config in force; returns what it copied, for the user.
    package func create(from loaded: LoadedConfig) throws(ConfigError) -> [String] {
        guard case .file(let source)? = loaded.location, let base = loaded.baseDirectory else {
            throw ConfigError("the app config in force is remote (\(loaded.source)); fprint map and fprint scenario change a local one: pass --config with a local file, or clear the config-url setting")
        }
        guard case .success = loaded.scenarioLoad else {
            throw ConfigError(source: loaded.scenariosSource, "the scenarios cannot be read, so they cannot be copied: mend them first")
        }
        guard let scenariosLocation = try? ConfigLocation.parse(loaded.scenariosSource, currentDirectory: base),
              case .file(let scenariosSource) = scenariosLocation else {
            throw ConfigError("the scenarios of the app config in force are remote (\(loaded.scenariosSource)); fprint scenario changes local ones")
        }
        var root = try object(Files.read(source), source: source)
        root["scenariosURL"] = .string("scenarios.json")
        var copied = [source]
        // Pictures move into plans/ so the copy does not depend on where it came from.
        if case .array(var maps)? = root["maps"] {
            for i in maps.indices {
                guard case .object(var map) = maps[i], case .object(var plan)? = map["floorPlan"],
                      case .string(let image)? = plan["image"], !image.hasPrefix("/") else { continue }
                let name = URL(fileURLWithPath: image).lastPathComponent
                try copyIfAbsent("\(base)/\(image)", to: "\(plansDirectory)/\(name)")
                plan["image"] = .string("plans/\(name)")
                map["floorPlan"] = .object(plan)
                maps[i] = .object(map)
                copied.append("\(base)/\(image)")
            }
            root["maps"] = .array(maps)
        }
        try copyIfAbsent(scenariosSource, to: scenariosPath)
        copied.append(scenariosSource)
        for folder in ["environments", "beacons"] {
            let from = "\(base)/\(folder)"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: from)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") {
                try copyIfAbsent("\(from)/\(name)", to: "\(directory)/\(folder)/\(name)")
                copied.append("\(from)/\(name)")
            }
        }
        // Written last: its existence is what makes the folder the config in force.
        try save(appConfig: root)
        return copied
    }

    /// The app config as JSON members, to change and `save`.
    package func appConfigJSON() throws(ConfigError) -> JSONObject {
        try object(Files.read(appConfigPath), source: appConfigPath)
    }

    package func scenariosJSON() throws(ConfigError) -> JSONObject {
        try object(Files.read(scenariosPath), source: scenariosPath)
    }

    /// Replaces the app config after checking it, and that the scenarios still fit it (a removed map no scenario walks).
    package func save(appConfig root: JSONObject) throws(ConfigError) {
        let config = try AppConfig(json: .object(root), source: appConfigPath)
        if FileManager.default.fileExists(atPath: scenariosPath) {
            _ = try ScenarioSet(json: .object(scenariosJSON()), source: scenariosPath, appConfig: config)
        }
        try Files.writeAtomically(Data(PrettyJSON.text(.object(root)).utf8), to: appConfigPath)
    }

    /// Replaces the scenarios after checking them against the app config.
    package func save(scenarios root: JSONObject) throws(ConfigError) {
        let config = try AppConfig(json: .object(appConfigJSON()), source: appConfigPath)
        _ = try ScenarioSet(json: .object(root), source: scenariosPath, appConfig: config)
        try Files.writeAtomically(Data(PrettyJSON.text(.object(root)).utf8), to: scenariosPath)
    }

    /// Copies a file the folder does not have yet (one the user put there stays theirs).
    package func copyIfAbsent(_ from: String, to: String) throws(ConfigError) {
        guard !FileManager.default.fileExists(atPath: to) else { return }
        try Files.writeAtomically(Files.read(from), to: to)
    }

    private func object(_ data: Data, source: String) throws(ConfigError) -> JSONObject {
        guard case .object(let o) = try JSONText.parse(data, source: source) else {
            throw ConfigError(source: source, "expected a JSON object")
        }
        return o
    }
}
