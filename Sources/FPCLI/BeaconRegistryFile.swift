import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// A map's beacon registry file and the locator over it, shared by `locate` and `track`.
struct BeaconRegistryFile {
    /// An explicit registry file (`--beacons`); nil: beacons/<map>.json beside the app config.
    var path: String?
    var pathLossExponent: Double
    var measuredPower: Double

    /// The registry's locator for the map; nil when no registry exists for it.
    func locator(ws: Workspace, loaded: LoadedConfig?, level: String, metersPerUnit: Double) throws -> BeaconLocator? {
        let path: String
        if let explicit = self.path {
            path = explicit
        } else {
            let candidates = [loaded?.baseDirectory, ws.paths.configDirectory].compactMap { $0 }.map { "\($0)/beacons/\(level).json" }
            guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else { return nil }
            path = found
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(path): cannot read the beacon registry", .notFound) }
        guard let value = try? CanonicalJSON.parse(data) else { throw CommandFailure("\(path): not valid JSON", .dataError) }
        do {
            let registry = try BeaconRegistry(json: value, source: path)
            return BeaconLocator(registry: registry, metersPerUnit: metersPerUnit,
                                 pathLoss: PathLoss(exponent: pathLossExponent), defaultMeasuredPower: measuredPower)
        } catch {
            throw CommandFailure(error.description, .dataError)
        }
    }
}
