import FPAnalysis
import FPConfig
import FPCore
import FPDashboard

/// What both dashboards (`fprint dashboard`, `fprint gateway`) draw maps
/// with: the app config's maps with their floor-plan pictures, and the
/// beacon registries `fprint beacons` would find.
enum DashboardSetup {
    /// `strict`: a picture or registry that cannot be read fails (`fprint
    /// dashboard`); otherwise it is left out with a warning on stderr (a
    /// gateway serves sync first and starts all the same).
    static func maps(_ config: LoadedConfig?, paths: FPPaths, strict: Bool)
        throws -> (maps: [String: DashboardMap], registries: [String: BeaconRegistry]) {
        var maps: [String: DashboardMap] = [:]
        var registries: [String: BeaconRegistry] = [:]
        func tolerant<T>(_ what: () throws -> T?) throws -> T? {
            do { return try what() } catch let failure as CommandFailure where !strict {
                Terminal.err("warning: dashboard: \(failure.description); left out")
                return nil
            }
        }
        for m in config?.appConfig.maps ?? [] {
            let plan = try tolerant { try FloorPlanFile.load(map: m.id, config: config) }
            maps[m.id] = DashboardMap(id: m.id, description: m.description == m.id ? "" : m.description, metersPerUnit: m.scale.metersPerUnit,
                                      width: m.extent?.width, height: m.extent?.height, outline: m.outline, floorPlan: plan)
            registries[m.id] = try tolerant { try BeaconRegistryFile.load(map: m.id, explicit: nil, config: config, paths: paths) }
        }
        return (maps, registries)
    }
}
