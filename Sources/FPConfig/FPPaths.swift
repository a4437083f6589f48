import Foundation

/// Where fprint keeps its files, following the XDG base directory spec.
/// Built from an environment dictionary so tests can pass a fake one.
package struct FPPaths: Sendable, Equatable {
    /// `$XDG_DATA_HOME/fprint` (default `~/.local/share/fprint`).
    package var dataDirectory: String
    /// `$XDG_CONFIG_HOME/fprint` (default `~/.config/fprint`).
    package var configDirectory: String
    /// `$XDG_CACHE_HOME/fprint` (default `~/.cache/fprint`).
    package var cacheDirectory: String
    /// `$XDG_STATE_HOME/fprint` (default `~/.local/state/fprint`): what fprint
    /// notes about its own runs (the last sync of each database).
    package var stateDirectory: String
    /// `$FPRINT_DB`, else `<data>/fprint.sqlite`.
    package var databasePath: String
    /// `<config>/settings.json`.
    package var settingsPath: String
    /// `<data>/install-id`.
    package var installIDPath: String
    /// `<cache>/config`: offline copies of remote app configs and scenarios.
    package var configCacheDirectory: String

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        // The spec says relative XDG values are invalid and must be ignored.
        func base(_ variable: String, _ fallback: String) -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        dataDirectory = base("XDG_DATA_HOME", ".local/share") + "/fprint"
        configDirectory = base("XDG_CONFIG_HOME", ".config") + "/fprint"
        cacheDirectory = base("XDG_CACHE_HOME", ".cache") + "/fprint"
        stateDirectory = base("XDG_STATE_HOME", ".local/state") + "/fprint"
        if let db = environment["FPRINT_DB"], !db.isEmpty {
            databasePath = db
        } else {
            databasePath = dataDirectory + "/fprint.sqlite"
        }
        settingsPath = configDirectory + "/settings.json"
        installIDPath = dataDirectory + "/install-id"
        configCacheDirectory = cacheDirectory + "/config"
    }
}
