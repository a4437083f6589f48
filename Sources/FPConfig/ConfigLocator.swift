import Foundation

/// Finds the shipped app config when the user named none (`FPRINT_CONFIG` and
/// the `config-url` setting are the caller's to check first).
package enum ConfigLocator {
    package static let relativePath = "Config/app-config.json"
    package static let systemPaths = [
        "/usr/local/share/fprint/Config/app-config.json",
        "/usr/share/fprint/Config/app-config.json",
    ]

    /// The first existing candidate, or nil.
    package static func defaultAppConfigPath(
        executablePath: String?, currentDirectory: String,
        fileExists: (String) -> Bool = { FileManager.default.isReadableFile(atPath: $0) }
    ) -> String? {
        candidates(executablePath: executablePath, currentDirectory: currentDirectory).first(where: fileExists)
    }

    /// Every place searched, in order (also for a "looked in …" error message):
    /// `Config/app-config.json` in the current directory; then, for the
    /// executable (and, when it is a symlink, its real location), the
    /// installed copy beside it (`make install PREFIX=P` puts the binary in
    /// `P/bin` and the config in `P/share/fprint`) and the executable's
    /// directory and each parent up to `/` (a development build at
    /// `.build/debug/fprint` finds the repository's copy); then the system
    /// install locations.
    package static func candidates(executablePath: String?, currentDirectory: String) -> [String] {
        var result = [ConfigLocation.normalised(currentDirectory + "/" + relativePath)]
        if let executablePath, !executablePath.isEmpty {
            let absolute = executablePath.hasPrefix("/") ? executablePath : currentDirectory + "/" + executablePath
            let given = URL(fileURLWithPath: absolute).standardized
            for executable in [given.path, given.resolvingSymlinksInPath().path] {
                var directory = NSString(string: executable).deletingLastPathComponent
                let prefix = NSString(string: directory).deletingLastPathComponent
                result.append(ConfigLocation.normalised(prefix + "/share/fprint/" + relativePath))
                while !directory.isEmpty {
                    result.append(ConfigLocation.normalised(directory + "/" + relativePath))
                    let parent = NSString(string: directory).deletingLastPathComponent
                    if parent == directory { break }
                    directory = parent
                }
            }
        }
        result += systemPaths
        var seen = Set<String>()
        return result.filter { seen.insert($0).inserted }
    }

    /// The executable of this process, for `defaultAppConfigPath`: what
    /// /proc/self/exe names, as Foundation's `Bundle.main` reads it too, whose
    /// setup cost every command's start about a millisecond.
    package static var currentExecutablePath: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }
}
