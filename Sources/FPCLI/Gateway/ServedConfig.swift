import Foundation

/// Files `fprint gateway` serves under `/config/` beside the app config and
/// scenarios: the simulated radio environments (`environments/<MAP>.json`),
/// the beacon registries (`beacons/<MAP>.json`) and the maps' floor-plan
/// pictures (at their path relative to the config), so `--simulate`,
/// `locate`, `track`, `beacons`, the plots and `fprint dashboard` work for
/// clients whose config is the served one.
enum ServedConfigFiles {
    /// Every `environments/*.json` and `beacons/*.json` beside a local app
    /// config (a registry in `registryFolder` — your own, `fprint beacons
    /// import`'s — wins, as `fprint beacons` finds it), keyed by its path
    /// under `/config/`. A remote or missing config serves none.
    static func besideConfig(_ location: String, registryFolder: String? = nil, pictures: [String] = []) -> [String: Data] {
        guard !location.contains("://") else { return [:] }
        let folder = URL(fileURLWithPath: location).deletingLastPathComponent()
        var files = jsonFiles(in: folder.appendingPathComponent("environments"), as: "environments")
        files.merge(jsonFiles(in: folder.appendingPathComponent("beacons"), as: "beacons")) { _, new in new }
        if let registryFolder {
            files.merge(jsonFiles(in: URL(fileURLWithPath: registryFolder).appendingPathComponent("beacons"), as: "beacons")) { _, own in own }
        }
        for picture in pictures where servable(picture) {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(picture).path),
               data.count <= FloorPlanFile.maxBytes {
                files[picture] = data
            }
        }
        return files
    }

    /// A picture path inside the config's folder: relative, without `..`,
    /// and not a name the gateway answers itself.
    static func servable(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return !path.hasPrefix("/") && !parts.contains("..") && !parts.contains("") && !path.contains("\\")
            && !["app-config.json", "scenarios.json"].contains(path)
    }

    private static func jsonFiles(in folder: URL, as prefix: String) -> [String: Data] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var files: [String: Data] = [:]
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                files["\(prefix)/\(name)"] = data
            }
        }
        return files
    }
}
