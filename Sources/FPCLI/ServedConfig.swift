import Foundation

/// Files `fprint gateway` serves under `/config/` beside the app config and
/// scenarios: the simulated radio environments (`environments/<MAP>.json`),
/// so `--simulate` works for clients whose config is the served one.
enum ServedConfigFiles {
    /// Every `environments/*.json` beside a local app config, keyed by its
    /// path under `/config/`. A remote or missing config serves none.
    static func environments(besideConfig location: String) -> [String: Data] {
        guard !location.contains("://") else { return [:] }
        let folder = URL(fileURLWithPath: location).deletingLastPathComponent().appendingPathComponent("environments")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        var files: [String: Data] = [:]
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            if let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                files["environments/\(name)"] = data
            }
        }
        return files
    }
}
