import FPCore
import FPNet
import Foundation
import SystemPackage

/// The user's persisted choices (DESIGN.md §4 "Settings").
package struct Settings: Sendable, Equatable {
    /// Where the app config is loaded from; nil means the default location.
    package var configURL: String?
    /// Radios to collect: at least one, in `Radio.allCases` order.
    package var radios: [Radio]
    /// Length of a static measurement, in `measurementSecondsRange`.
    package var measurementSeconds: Int
    /// Walking-speed correction, in `speedCorrectionRange` (see `WalkPace`).
    package var speedCorrection: Int

    package static let measurementSecondsRange = 5...120
    package static let speedCorrectionRange = WalkPace.correctionRange
    package static let defaults = Settings()

    /// Every key of `fprint settings`, with descriptions for help output.
    package static var keys: [SettingKey] { SettingKey.allCases }

    package init(configURL: String? = nil, radios: [Radio] = Radio.allCases, measurementSeconds: Int = 20,
                speedCorrection: Int = 0) {
        self.configURL = configURL
        self.radios = radios
        self.measurementSeconds = measurementSeconds
        self.speedCorrection = speedCorrection
    }

    /// The value as `fprint settings get` prints it (`""` for the default
    /// config location; a URL's password masked).
    package func value(of key: SettingKey) -> String {
        switch key {
        case .configURL: configURL.map(HTTPError.displayURL) ?? ""
        case .radios: radios.map(\.rawValue).joined(separator: ",")
        case .measurementSeconds: String(measurementSeconds)
        case .speedCorrection: String(speedCorrection)
        }
    }

    /// Sets a key from its text form, validating it.
    package mutating func set(_ key: SettingKey, to text: String) throws(ConfigError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let invalid = ConfigError("invalid value \"\(HTTPError.displayURL(text))\" for \(key.name): expected \(key.allowed)")
        switch key {
        case .configURL:
            if trimmed.isEmpty {
                configURL = nil
            } else {
                let cwd = FileManager.default.currentDirectoryPath
                guard let location = try? ConfigLocation.parse(trimmed, currentDirectory: cwd) else { throw invalid }
                // A relative path is stored absolute: later runs start in other directories.
                if ConfigLocation.scheme(of: trimmed) == nil, case .file(let path) = location {
                    configURL = path
                } else {
                    configURL = trimmed
                }
            }
        case .radios:
            let names = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { !$0.isEmpty }
            let chosen = names.compactMap(Radio.init(rawValue:))
            guard !chosen.isEmpty, chosen.count == names.count else { throw invalid }
            radios = Radio.allCases.filter(chosen.contains)
        case .measurementSeconds:
            guard let n = Self.integer(trimmed), Self.measurementSecondsRange.contains(n) else { throw invalid }
            measurementSeconds = n
        case .speedCorrection:
            guard let n = Self.integer(trimmed), Self.speedCorrectionRange.contains(n) else { throw invalid }
            speedCorrection = n
        }
    }

    /// Accepts "+5" and a typographic minus ("−5") as well as "-5".
    private static func integer(_ text: String) -> Int? {
        Int(text.replacingOccurrences(of: "\u{2212}", with: "-"))
    }

    /// The settings file's content. Missing keys take their defaults (files
    /// written by older versions stay valid); unknown keys are ignored.
    init(json: JSONValue, source: String) throws(ConfigError) {
        self.init()
        let r = JSONReader(source: source)
        let o = try r.object(json, at: "$")
        if let value = o["configURL"], value != .null {
            guard case .string(let s) = value else {
                throw r.error("$.configURL", "expected a string or null, found \(JSONPath.typeName(value))")
            }
            guard (try? ConfigLocation.parse(s, currentDirectory: "/")) != nil else {
                throw r.error("$.configURL", "expected \(SettingKey.configURL.allowed), found \(JSONPath.shown(value))")
            }
            configURL = s
        }
        if let value = o["radios"] {
            let list = try r.array(value, at: "$.radios")
            var chosen: [Radio] = []
            for (i, item) in list.enumerated() {
                guard let name = item.stringValue, let radio = Radio(rawValue: name) else {
                    throw r.error(JSONPath.element("$.radios", i),
                                  "expected one of ble, wifi, cell, location, found \(JSONPath.shown(item))")
                }
                chosen.append(radio)
            }
            guard !chosen.isEmpty else { throw r.error("$.radios", "at least one radio is required, found none") }
            radios = Radio.allCases.filter(chosen.contains)
        }
        if let value = o["measurementSeconds"] {
            measurementSeconds = try r.integer(value, at: "$.measurementSeconds", in: Self.measurementSecondsRange)
        }
        if let value = o["speedCorrection"] {
            speedCorrection = try r.integer(value, at: "$.speedCorrection", in: Self.speedCorrectionRange)
        }
    }

    var json: JSONValue {
        var o: JSONObject = [
            "radios": .array(radios.map { .string($0.rawValue) }),
            "measurementSeconds": .int(Int64(measurementSeconds)),
            "speedCorrection": .int(Int64(speedCorrection)),
        ]
        if let configURL { o["configURL"] = .string(configURL) }
        return .object(o)
    }
}

/// A key of `fprint settings get/set`.
package enum SettingKey: String, CaseIterable, Sendable {
    case configURL = "config-url"
    case radios
    case measurementSeconds = "measurement-seconds"
    case speedCorrection = "speed-correction"

    package var name: String { rawValue }

    /// Looks a key up by name; the error lists the known keys.
    package init(name: String) throws(ConfigError) {
        guard let key = SettingKey(rawValue: name.lowercased()) else {
            let known = SettingKey.allCases.map(\.name).joined(separator: ", ")
            throw ConfigError("unknown setting \"\(name)\"; known settings: \(known)")
        }
        self = key
    }

    /// One line for help output.
    package var summary: String {
        switch self {
        case .configURL: "where the app config is loaded from (empty: the default location)"
        case .radios: "radios to collect"
        case .measurementSeconds: "length of a static measurement in seconds"
        case .speedCorrection: "walking-speed correction for walks, 5 % per step (0 = 1 m/s)"
        }
    }

    /// What values are allowed, as error messages and help show it.
    package var allowed: String {
        switch self {
        case .configURL: "a file path, a file:// or http(s):// URL, or \"\" for the default location"
        case .radios: "a comma-separated list of ble, wifi, cell, location (at least one)"
        case .measurementSeconds:
            "a whole number of seconds from \(Settings.measurementSecondsRange.lowerBound) to \(Settings.measurementSecondsRange.upperBound)"
        case .speedCorrection:
            "a whole number from \(Settings.speedCorrectionRange.lowerBound) to \(Settings.speedCorrectionRange.upperBound)"
        }
    }

    package var defaultValue: String { Settings.defaults.value(of: self) }
}

/// Reads and writes the settings file (`FPPaths.settingsPath`).
package struct SettingsStore: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// The saved settings; defaults when there is no file yet.
    package func load() throws(ConfigError) -> Settings {
        guard FileManager.default.fileExists(atPath: path) else { return .defaults }
        return try Settings(json: JSONText.parse(Files.read(path), source: path), source: path)
    }

    /// Writes atomically, creating the directory. Owner-only permissions: a
    /// config URL may carry credentials.
    package func save(_ settings: Settings) throws(ConfigError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try encoder.encode(settings.json) } catch { throw ConfigError(source: path, "cannot encode settings") }
        try Files.writeAtomically(data + Data("\n".utf8), to: path, permissions: 0o600)
    }

    /// Back to defaults by removing the file, so future default changes apply.
    @discardableResult
    package func reset() throws(ConfigError) -> Settings {
        if unlink(path) != 0 {
            let failure = Errno(rawValue: errno)
            if failure != .noSuchFileOrDirectory { throw ConfigError(source: path, "cannot remove: \(failure)") }
        }
        return .defaults
    }

    /// The text value of a key (`""` for the default config location).
    package func get(_ key: String) throws(ConfigError) -> String {
        try load().value(of: SettingKey(name: key))
    }

    /// Validates, applies and saves one key; returns the new settings.
    @discardableResult
    package func set(_ key: String, _ value: String) throws(ConfigError) -> Settings {
        let settingKey = try SettingKey(name: key)
        var settings = try load()
        try settings.set(settingKey, to: value)
        try save(settings)
        return settings
    }
}
