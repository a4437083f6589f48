import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// A map's beacon registry file, for every command that needs one
/// (`coverage`, `beacons`), and the locator over it (`locate`, `track`).
struct BeaconRegistryFile {
    /// An explicit registry file (`--beacons`); nil: the map's own (`registryPath(map:…)`).
    var path: String?
    var pathLossExponent: Double
    var measuredPower: Double

    /// The registry's locator for the map; nil when no registry exists for it.
    func locator(ws: Workspace, loaded: LoadedConfig?, level: String, metersPerUnit: Double) throws -> BeaconLocator? {
        guard let registry = try Self.load(map: level, explicit: path, config: loaded, paths: ws.paths) else { return nil }
        return BeaconLocator(registry: registry, metersPerUnit: metersPerUnit,
                             pathLoss: PathLoss(exponent: pathLossExponent), defaultMeasuredPower: measuredPower)
    }

    /// `beacons/<map>.json` in the user's config folder (`fprint beacons
    /// import` writes there: the user's own list wins), else beside the app
    /// config; nil when neither is readable.
    static func registryPath(map: String, config: LoadedConfig?, paths: FPPaths) -> String? {
        [paths.configDirectory, config?.baseDirectory].compactMap { $0 }
            .map { "\($0)/beacons/\(map).json" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// `explicit`, else the map's registry file (`registryPath(map:…)`), else
    /// the one a remote app config's server serves beside it (`fprint
    /// gateway`: `/config/beacons/<map>.json`, cached for offline use); nil
    /// when there is none. A named file that cannot be read is not found
    /// (66); one that is not a registry is a data error naming it (65).
    static func load(map: String, explicit: String?, config: LoadedConfig?, paths: FPPaths) throws -> BeaconRegistry? {
        guard let path = explicit ?? Self.registryPath(map: map, config: config, paths: paths) else {
            return try served(map: map, config: config, paths: paths)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the beacon registry", .notFound)
        }
        guard let value = try? CanonicalJSON.parse(data) else {
            throw CommandFailure("\(path): cannot read the beacon registry as JSON", .dataError)
        }
        do {
            return try BeaconRegistry(json: value, source: path)
        } catch {
            throw CommandFailure("\(error)", .dataError)
        }
    }

    /// The registry served beside a remote app config, if its server has one.
    static func served(map: String, config: LoadedConfig?, paths: FPPaths) throws -> BeaconRegistry? {
        guard let config, config.baseDirectory == nil, config.location != nil else { return nil }
        do {
            return try Workspace.configLoader(paths: paths).loadMapFile(.beacons, map: map, of: config) { data, source in
                try BeaconRegistry(json: try CanonicalJSON.parse(data), source: source)
            }
        } catch {
            throw CommandFailure("\(error)", .dataError)
        }
    }
}
