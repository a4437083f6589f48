import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// Where a map's beacon registry lives and how it is read, for every
/// command that needs one (coverage, beacons).
enum BeaconRegistryFile {
    /// `explicit`, else `beacons/<map>.json` beside the app config, else in
    /// the user's config folder; nil when there is none. A file that is not
    /// a registry is a data error naming it.
    static func load(map: String, explicit: String?, config: LoadedConfig, paths: FPPaths) throws -> BeaconRegistry? {
        let path = explicit ?? [config.baseDirectory, paths.configDirectory].compactMap { $0 }
            .map { "\($0)/beacons/\(map).json" }.first { FileManager.default.isReadableFile(atPath: $0) }
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let value = try? CanonicalJSON.parse(data) else {
            throw CommandFailure("\(path): cannot read the beacon registry as JSON", .dataError)
        }
        do {
            return try BeaconRegistry(json: value, source: path)
        } catch {
            throw CommandFailure("\(error)", .dataError)
        }
    }
}
