import FPConfig
import FPCore
import Foundation

/// The user's own app config as `fprint map` and `fprint scenario` change
/// it: the folder, made from the config in force the first time (said once
/// on stderr), with a note when another config stays in force.
struct OwnConfig {
    let folder: UserConfigFolder

    static func open(_ ws: Workspace) throws -> OwnConfig {
        let folder = UserConfigFolder(paths: ws.paths)
        if !folder.exists {
            let loaded = try ws.loadConfig()
            let copied: [String]
            do { copied = try folder.create(from: loaded) } catch { throw CommandFailure(error.description, .dataError) }
            let environments = copied.filter { $0.contains("/environments/") }.count
            let registries = copied.filter { $0.contains("/beacons/") }.count
            Terminal.err("made your own app config \(folder.appConfigPath) from \(loaded.source) (with its scenarios, "
                + "\(Terminal.counted(environments, "simulated environment")) and \(Terminal.counted(registries, "beacon registry", plural: "beacon registries"))); "
                + "it is the app config in force from now on")
        }
        let inForce = try ws.configLocation()
        let cwd = FileManager.default.currentDirectoryPath
        if (try? ConfigLocation.parse(inForce, currentDirectory: cwd)) != (try? ConfigLocation.parse(folder.appConfigPath, currentDirectory: cwd)) {
            Terminal.err("note: \(try ws.configOrigin()) names \(inForce), which stays in force; this change is made in \(folder.appConfigPath)")
        }
        return OwnConfig(folder: folder)
    }

    func appConfig() throws -> JSONObject {
        do { return try folder.appConfigJSON() } catch { throw CommandFailure(error.description, .dataError) }
    }

    func scenarios() throws -> JSONObject {
        do { return try folder.scenariosJSON() } catch { throw CommandFailure(error.description, .dataError) }
    }

    func save(appConfig root: JSONObject) throws {
        do { try folder.save(appConfig: root) } catch { throw CommandFailure(error.description, .dataError) }
    }

    func save(scenarios root: JSONObject) throws {
        do { try folder.save(scenarios: root) } catch { throw CommandFailure(error.description, .dataError) }
    }

    /// The maps as JSON objects, in order.
    static func maps(_ root: JSONObject) -> [JSONObject] {
        root["maps"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    /// A map id becomes file names (beacons/ID.json, plans/ID.png): letters, digits, `.`, `_`, `-`.
    static func checkID(_ id: String, what: String = "map id") throws {
        let allowed = id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
        guard !id.isEmpty, id.count <= 64, allowed, !id.hasPrefix("."), !id.hasPrefix("-") else {
            throw CommandFailure("\"\(id)\" cannot be a \(what): use up to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'", .usage)
        }
    }
}
