import FPCore
import Foundation
import Testing

@testable import FPConfig

@Suite struct SettingsTests {
    static func store() throws -> (SettingsStore, URL) {
        let root = try Support.temporaryDirectory()
        return (SettingsStore(path: root.appendingPathComponent("config/fprint/settings.json").path), root)
    }

    @Test func missingFileMeansDefaults() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        let settings = try store.load()
        #expect(settings == Settings.defaults)
        #expect(settings.configURL == nil)
        #expect(settings.radios == [.ble, .wifi, .cell, .location])
        #expect(settings.measurementSeconds == 20)
        #expect(settings.speedCorrection == 0)
    }

    @Test func saveLoadAndReset() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        let custom = Settings(configURL: "https://example.org/app-config.json", radios: [.ble, .location],
                              measurementSeconds: 45, speedCorrection: -3)
        try store.save(custom)  // creates the missing directories
        #expect(try store.load() == custom)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.contains(#""configURL" : "https://example.org/app-config.json""#))

        #expect(try store.reset() == .defaults)
        #expect(!FileManager.default.fileExists(atPath: store.path))
        #expect(try store.load() == .defaults)
        #expect(try store.reset() == .defaults)  // resetting twice is fine
    }

    @Test func setAndGetByKey() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try store.get("config-url") == "")
        #expect(try store.get("radios") == "ble,wifi,cell,location")
        try store.set("config-url", "http://gw.local/app-config.json")
        try store.set("radios", " WiFi, ble,wifi ")
        try store.set("measurement-seconds", "120")
        try store.set("speed-correction", "-10")
        #expect(try store.load() == Settings(configURL: "http://gw.local/app-config.json", radios: [.ble, .wifi],
                                             measurementSeconds: 120, speedCorrection: -10))
        #expect(try store.get("radios") == "ble,wifi")
        #expect(try store.get("speed-correction") == "-10")
        try store.set("speed-correction", "+10")
        #expect(try store.get("speed-correction") == "10")
        try store.set("config-url", "surveys/../app-config.json")  // relative paths are stored absolute
        #expect(try store.get("config-url") == ConfigLocation.normalised(FileManager.default.currentDirectoryPath + "/app-config.json"))
        try store.set("config-url", "")  // back to the default location
        #expect(try store.load().configURL == nil)
    }

    static let invalidValues: [(String, String, String)] = [
        ("measurement-seconds", "4", #"invalid value "4" for measurement-seconds: expected a whole number of seconds from 5 to 120"#),
        ("measurement-seconds", "121", #"invalid value "121" for measurement-seconds: expected a whole number of seconds from 5 to 120"#),
        ("measurement-seconds", "twenty", #"invalid value "twenty" for measurement-seconds: expected a whole number of seconds from 5 to 120"#),
        ("measurement-seconds", "20.5", #"invalid value "20.5" for measurement-seconds: expected a whole number of seconds from 5 to 120"#),
        ("speed-correction", "11", #"invalid value "11" for speed-correction: expected a whole number from -10 to 10"#),
        ("speed-correction", "-11", #"invalid value "-11" for speed-correction: expected a whole number from -10 to 10"#),
        ("radios", "", #"invalid value "" for radios: expected a comma-separated list of ble, wifi, cell, location (at least one)"#),
        ("radios", "ble,gsm", #"invalid value "ble,gsm" for radios: expected a comma-separated list of ble, wifi, cell, location (at least one)"#),
        ("config-url", "ftp://x/app.json", #"invalid value "ftp://x/app.json" for config-url: expected a file path, a file:// or http(s):// URL, or "" for the default location"#),
        ("colour", "red", "unknown setting \"colour\"; known settings: config-url, radios, measurement-seconds, speed-correction"),
    ]

    @Test(arguments: invalidValues)
    func invalidValuesAreRefusedAndNothingIsSaved(_ key: String, _ value: String, _ message: String) throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: ConfigError(message)) { try store.set(key, value) }
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    static let badFiles: [(String, String)] = [
        ("{\"radios\": [\"ble\",]}", "not valid JSON near line 1, column 19: trailing comma before \"]\""),
        ("[]", "$: expected an object, found array"),
        (#"{"measurementSeconds": 500}"#, "$.measurementSeconds: 500 is outside the allowed range 5…120"),
        (#"{"speedCorrection": "fast"}"#, "$.speedCorrection: expected a whole number, found string"),
        (#"{"radios": []}"#, "$.radios: at least one radio is required, found none"),
        (#"{"radios": ["ble", "nfc"]}"#, #"$.radios[1]: expected one of ble, wifi, cell, location, found "nfc""#),
        (#"{"configURL": 5}"#, "$.configURL: expected a string or null, found number"),
    ]

    @Test(arguments: badFiles)
    func corruptFilesGiveOneLineErrorsNamingTheFile(_ text: String, _ message: String) throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        try Support.write(text, to: URL(fileURLWithPath: store.path))
        #expect(throws: ConfigError("\(store.path): \(message)")) { try store.load() }
        // `set` refuses to overwrite a file it cannot read; `reset` recovers.
        #expect(throws: ConfigError.self) { try store.set("radios", "ble") }
        try store.reset()
        #expect(try store.set("radios", "ble").radios == [.ble])
    }

    @Test func partialFilesTakeDefaultsForMissingKeys() throws {
        let (store, root) = try Self.store()
        defer { try? FileManager.default.removeItem(at: root) }
        try Support.write(#"{"measurementSeconds": 30, "futureSetting": true, "configURL": null}"#,
                          to: URL(fileURLWithPath: store.path))
        #expect(try store.load() == Settings(measurementSeconds: 30))
    }

    @Test func keysDescribeThemselves() {
        #expect(Settings.keys.map(\.name) == ["config-url", "radios", "measurement-seconds", "speed-correction"])
        for key in Settings.keys {
            #expect(!key.summary.isEmpty && !key.allowed.isEmpty)
        }
        #expect(SettingKey.measurementSeconds.defaultValue == "20")
        #expect(SettingKey.radios.defaultValue == "ble,wifi,cell,location")
    }
}

@Suite struct PathsTests {
    @Test func defaultsFollowXDGUnderHome() {
        let paths = FPPaths(environment: ["HOME": "/home/surveyor"])
        #expect(paths.dataDirectory == "/home/surveyor/.local/share/fprint")
        #expect(paths.configDirectory == "/home/surveyor/.config/fprint")
        #expect(paths.cacheDirectory == "/home/surveyor/.cache/fprint")
        #expect(paths.databasePath == "/home/surveyor/.local/share/fprint/fprint.sqlite")
        #expect(paths.settingsPath == "/home/surveyor/.config/fprint/settings.json")
        #expect(paths.installIDPath == "/home/surveyor/.local/share/fprint/install-id")
        #expect(paths.configCacheDirectory == "/home/surveyor/.cache/fprint/config")
        #expect(paths.stateDirectory == "/home/surveyor/.local/state/fprint")
    }

    @Test func xdgVariablesAndFPRINT_DBWin() {
        let paths = FPPaths(environment: [
            "HOME": "/home/s", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/cfg", "XDG_CACHE_HOME": "/tmp/c",
            "XDG_STATE_HOME": "/st", "FPRINT_DB": "/srv/survey.sqlite",
        ])
        #expect(paths.dataDirectory == "/data/fprint")
        #expect(paths.configDirectory == "/cfg/fprint")
        #expect(paths.cacheDirectory == "/tmp/c/fprint")
        #expect(paths.stateDirectory == "/st/fprint")
        #expect(paths.databasePath == "/srv/survey.sqlite")
        #expect(paths.settingsPath == "/cfg/fprint/settings.json")
        #expect(paths.installIDPath == "/data/fprint/install-id")
    }

    @Test func relativeOrEmptyValuesAreIgnored() {
        let paths = FPPaths(environment: ["HOME": "/h", "XDG_DATA_HOME": "relative/dir", "XDG_CONFIG_HOME": "", "FPRINT_DB": ""])
        #expect(paths.dataDirectory == "/h/.local/share/fprint")
        #expect(paths.configDirectory == "/h/.config/fprint")
        #expect(paths.databasePath == "/h/.local/share/fprint/fprint.sqlite")
    }
}

@Suite struct LocatorTests {
    @Test func searchOrder() {
        let exe = "/repo/.build/debug/fprint"
        func find(_ existing: Set<String>, cwd: String = "/work") -> String? {
            ConfigLocator.defaultAppConfigPath(executablePath: exe, currentDirectory: cwd, fileExists: existing.contains)
        }
        #expect(find(["/work/Config/app-config.json", "/repo/Config/app-config.json"]) == "/work/Config/app-config.json")
        #expect(find(["/repo/Config/app-config.json", "/usr/share/fprint/Config/app-config.json"]) == "/repo/Config/app-config.json")
        #expect(find(["/usr/local/share/fprint/Config/app-config.json", "/usr/share/fprint/Config/app-config.json"])
            == "/usr/local/share/fprint/Config/app-config.json")
        #expect(find(["/usr/share/fprint/Config/app-config.json"]) == "/usr/share/fprint/Config/app-config.json")
        #expect(find([]) == nil)
        // `make install PREFIX=$HOME/opt`: the binary in opt/bin, the config in opt/share/fprint.
        #expect(ConfigLocator.defaultAppConfigPath(
            executablePath: "/home/u/opt/bin/fprint", currentDirectory: "/tmp",
            fileExists: { $0 == "/home/u/opt/share/fprint/Config/app-config.json" })
            == "/home/u/opt/share/fprint/Config/app-config.json")

        let all = ConfigLocator.candidates(executablePath: exe, currentDirectory: "/work")
        #expect(all == [
            "/work/Config/app-config.json", "/repo/.build/share/fprint/Config/app-config.json",
            "/repo/.build/debug/Config/app-config.json",
            "/repo/.build/Config/app-config.json", "/repo/Config/app-config.json", "/Config/app-config.json",
            "/usr/local/share/fprint/Config/app-config.json", "/usr/share/fprint/Config/app-config.json",
        ])
    }

    @Test func relativeExecutablePathsUseTheCurrentDirectory() {
        let found = ConfigLocator.defaultAppConfigPath(
            executablePath: ".build/debug/fprint", currentDirectory: "/repo",
            fileExists: { $0 == "/repo/Config/app-config.json" })
        #expect(found == "/repo/Config/app-config.json")
    }

    /// On the real file system: the development binary finds the repository's config.
    @Test func theDevelopmentBinaryFindsTheRepositoryConfig() {
        let exe = Support.repoRoot.appendingPathComponent(".build/debug/fprint").path
        let found = ConfigLocator.defaultAppConfigPath(executablePath: exe, currentDirectory: "/")
        #expect(found == Support.repoRoot.appendingPathComponent("Config/app-config.json").path)
    }
}
