import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

/// The rules of the config in force, and a new rule from `fprint alerts add`'s words.
enum AlertRules {
    /// The rules and webhook of the app config in force.
    static func inForce(_ ws: Workspace) throws -> AlertSettings {
        let loaded = try ws.loadConfig()
        return try settings(loaded.appConfig.alerts, source: loaded.source)
    }

    /// A config's `alerts` member read; a bad one fails as bad input data, naming the file and path.
    static func settings(_ json: JSONValue?, source: String) throws -> AlertSettings {
        do { return try AlertSettings(json: json) } catch { throw CommandFailure("\(source): \(error.description)", .dataError) }
    }

    /// The rules of a config already read (none without a config).
    static func rules(_ config: LoadedConfig?) throws -> [AlertRule] {
        guard let config else { return [] }
        return try settings(config.appConfig.alerts, source: config.source).rules
    }

    /// A dashboard's alerts (`fprint dashboard`'s and the gateway's index): the
    /// rules in force when it started, over its store at each look; nil without rules.
    static func dashboardSource(_ rules: [AlertRule], store: SQLiteDocumentStore) -> (@Sendable () async throws -> [Alert])? {
        guard !rules.isEmpty else { return nil }
        return { AlertEvaluation.evaluate(rules, try AlertFactsReader.read(store, rules: rules), now: now()) }
    }

    static func now() -> Int64 {
        // Tests pin the clock (`FPRINT_ALERTS_NOW`, ISO time) to evaluate hold times and silence exactly.
        if let pinned = ProcessInfo.processInfo.environment["FPRINT_ALERTS_NOW"], let ms = ISOTime.milliseconds(pinned) { return ms }
        return Int64(Date().timeIntervalSince1970 * 1000)
    }

    /// The config's JSON of a rule from `add`'s words ("download < 5 Mbit/s"),
    /// checked whole; every mistake is one line and exit 64.
    static func ruleJSON(name: String, words: [String], map: String?, beacon: String?, link: String?, hold: String?) throws -> JSONValue {
        if let why = AlertSettings.checkID(name) { throw CommandFailure(why, .usage) }
        let text = words.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        let figureName = String(text.prefix { $0.isLetter })
        let rest = text.dropFirst(figureName.count).drop { $0 == " " }
        guard let figure = AlertFigure(rawValue: figureName) else {
            throw CommandFailure(figureName.isEmpty ? "the rule \"\(text)\" does not start with a figure: write e.g. \"download < 5 Mbit/s\""
                                 : AlertSettings.unknownFigure(figureName), .usage)
        }
        let comparisonText = String(rest.prefix { "<>=".contains($0) })
        guard let comparison = AlertComparison(rawValue: comparisonText) else {
            throw CommandFailure("the rule \"\(text)\" needs a comparison after \(figure.rawValue): <, <=, > or >=", .usage)
        }
        let limitText = rest.dropFirst(comparisonText.count).trimmingCharacters(in: .whitespaces)
        if case .failure(let e) = figure.unit.parse(limitText) { throw CommandFailure("\(figure.rawValue)'s limit: \(e.description)", .usage) }
        var o: JSONObject = ["id": .string(name), "figure": .string(figure.rawValue), "compare": .string(comparison.rawValue),
                             "limit": .string(limitText)]
        if let hold {
            if case .failure(let e) = AlertUnit.parseDuration(hold) { throw CommandFailure("--hold: \(e.description)", .usage) }
            o["hold"] = .string(hold)
        }
        if let map { o["map"] = .string(map) }
        if let beacon { o["beacon"] = .string(beacon) }
        if let link { o["link"] = .string(link) }
        do {
            _ = try AlertSettings(json: ["rules": [.object(o)]])
        } catch {
            // "$.alerts.rules[0]: rssi is a beacon's figure…" → "rssi is a beacon's figure…"
            let why = error.description.replacingOccurrences(of: "$.alerts.rules[0]", with: "")
            let option = why.hasPrefix(".beacon:") ? "--beacon" : why.hasPrefix(".compare:") ? "the comparison" : ""
            let message = why.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces)
            throw CommandFailure(option.isEmpty ? message : "\(option): \(message)", .usage)
        }
        return .object(o)
    }
}
