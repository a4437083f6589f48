import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

/// `fprint alerts`: limits on figures of the stored documents and the alerts they raise.
struct AlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Limits on network and beacon figures (add, list, remove) and the alerts they raise (show, the default).",
        discussion: """
            A rule watches one figure: download, upload (Mbit/s), rtt, jitter (ms), loss (%) of the stored network probes; rssi (dBm, a beacon's median in a document) or silence (s, min, h, d without a report) of a beacon; coverage (beacons heard at a measured point). Its scope is a map, a beacon or a link (an interface or SSID), or everything. The rules are the alerts member of your own app config. `fprint alerts` prints the active alerts and exits 3 when there is any, for cron.

            Examples:
              fprint alerts add slow-down "download < 5 Mbit/s" --map J1NP --hold 10min
              fprint alerts add weak-door "rssi < -85 dBm" --beacon C8:FD:19:00:00:01
              fprint alerts list
              fprint alerts --history --json
              fprint alerts webhook https://hooks.example.org/fprint
              fprint alerts remove slow-down
            """,
        subcommands: [Show.self, RuleList.self, Add.self, Remove.self, Webhook.self], defaultSubcommand: Show.self)
}

extension AlertsCommand {
    struct Show: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "The active alerts (with --history, the past ones too); exit 3 when any is active.")

        @Flag(help: "Past alerts too, oldest first.") var history = false
        @Flag(help: "One JSON object per alert and line.") var json = false
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let settings = try AlertRules.inForce(ws)
            guard !settings.rules.isEmpty else {
                Terminal.err("no alert rules yet (fprint alerts add NAME \"FIGURE < LIMIT\")")
                return
            }
            let now = AlertRules.now()
            let alerts = AlertEvaluation.evaluate(settings.rules, try AlertFactsReader.read(ws.openStore(.read), rules: settings.rules), now: now)
            await AlertOutbox.deliverAfterEvaluating(ws, settings: settings, alerts: alerts, now: now)
            let shown = history ? alerts : alerts.filter(\.isActive)
            AlertsReport(alerts: shown, now: now).print(json: json)
            let active = alerts.filter(\.isActive).count
            if !json {
                Terminal.err("\(Terminal.counted(settings.rules.count, "rule")), \(active) active" + (history ? ", \(alerts.count - active) past" : ""))
            }
            if active > 0 { throw CommandFailure("\(Terminal.counted(active, "alert")) active", .alerts) }
        }
    }

    struct RuleList: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "The rules, and the webhook.")
        @Flag(help: "One JSON object per rule and line, as the config keeps it.") var json = false
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let ws = Workspace(storeOptions: nil, configOptions: configOptions)
            let loaded = try ws.loadConfig()
            let settings = try AlertRules.settings(loaded.appConfig.alerts, source: loaded.source)
            if json {
                for rule in loaded.appConfig.alerts?["rules"]?.arrayValue ?? [] { Terminal.out(CanonicalJSON.string(rule)) }
                return
            }
            for line in Terminal.table(["RULE", "WHEN"], settings.rules.map { [$0.id, $0.summary] }) { Terminal.out(line) }
            Terminal.err("\(Terminal.counted(settings.rules.count, "rule")) in \(loaded.source); webhook: \(settings.webhook ?? "none")")
        }
    }

    struct Add: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a rule: a name, then \"FIGURE COMPARISON LIMIT UNIT\".",
            discussion: """
                Figures: download, upload (Mbit/s, kbit/s, Gbit/s), rtt, jitter (ms), loss (%), rssi (dBm), silence (s, min, h, d), coverage (beacons). Comparisons: < <= > >=.

                Examples:
                  fprint alerts add slow-down "download < 5 Mbit/s" --map J1NP --hold 10min
                  fprint alerts add lossy-wifi loss '>=' 2 % --link eduroam
                  fprint alerts add door-beacon "silence > 2 h" --beacon C8:FD:19:00:00:01
                  fprint alerts add gaps "coverage < 3 beacons" --map J1NP
                """)

        @Argument(help: "The rule's name (letters, digits, '.', '_', '-').") var name: String
        @Argument(help: ArgumentHelp("The rule: figure, comparison, limit with its unit (one argument or several).", valueName: "rule"))
        var rule: [String]
        @Option(help: "Only documents of this map.") var map: String?
        @Option(help: "This beacon (its MAC, or the identity it advertises: ibeacon:UUID:MAJOR:MINOR or eddystone:NAMESPACE:INSTANCE), for rssi and silence.") var beacon: String?
        @Option(help: "Only probes that left by this interface or through this SSID.") var link: String?
        @Option(help: ArgumentHelp("How long the figure must keep crossing the limit (e.g. 10min, 30s).", valueName: "time")) var hold: String?
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let ws = Workspace(storeOptions: nil, configOptions: configOptions)
            let ruleJSON = try AlertRules.ruleJSON(name: name, words: rule, map: map, beacon: beacon, link: link, hold: hold)
            let own = try OwnConfig.open(ws)
            var root = try own.appConfig()
            var alerts = root["alerts"]?.objectValue ?? JSONObject()
            var rules = alerts["rules"]?.arrayValue ?? []
            if rules.contains(where: { $0["id"]?.stringValue == name }) {
                throw CommandFailure("there is a rule \(name) already: remove it first (fprint alerts remove \(name))", .usage)
            }
            if case .map(let id)? = try? AlertSettings(json: ["rules": [ruleJSON]]).rules.first?.scope,
               (try? AppConfig(json: .object(root), source: own.folder.appConfigPath))?.map(id: id) == nil {
                throw CommandFailure("--map \(id): no such map in \(own.folder.appConfigPath)", .usage)
            }
            rules.append(ruleJSON)
            alerts["rules"] = .array(rules)
            root["alerts"] = .object(alerts)
            let settings = try AlertRules.settings(.object(alerts), source: own.folder.appConfigPath)
            try own.save(appConfig: root)
            Terminal.err("added \(name): \(settings.rules.last!.summary) (\(own.folder.appConfigPath))")
        }
    }

    struct Remove: ReportingCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a rule by its name.")
        @Argument(help: "The rule's name.") var name: String
        @OptionGroup var configOptions: ConfigOptions

        func perform() async throws {
            let ws = Workspace(storeOptions: nil, configOptions: configOptions)
            let own = try OwnConfig.open(ws)
            var root = try own.appConfig()
            var alerts = root["alerts"]?.objectValue ?? JSONObject()
            let rules = alerts["rules"]?.arrayValue ?? []
            let kept = rules.filter { $0["id"]?.stringValue != name }
            guard kept.count < rules.count else {
                let names = rules.compactMap { $0["id"]?.stringValue }
                throw CommandFailure("no rule \(name) in \(own.folder.appConfigPath) (rules: \(names.isEmpty ? "none" : names.joined(separator: ", ")))", .notFound)
            }
            alerts["rules"] = .array(kept)
            root["alerts"] = .object(alerts)
            _ = try AlertRules.settings(.object(alerts), source: own.folder.appConfigPath)
            try own.save(appConfig: root)
            Terminal.err("removed \(name) (\(own.folder.appConfigPath))")
        }
    }

    struct Webhook: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "webhook",
            abstract: "Where raised and cleared alerts are posted (JSON), or --remove.")
        @Argument(help: "An http:// or https:// URL.") var url: String?
        @Flag(help: "Post nowhere.") var remove = false
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws {
            if (url == nil) == !remove { throw ValidationError("give a URL or --remove") }
        }

        func perform() async throws {
            // One line (not the usage text a validation error brings): the URL is input, not a misused option.
            if let url, let why = AlertSettings.checkWebhook(url) { throw CommandFailure(why, .usage) }
            let ws = Workspace(storeOptions: nil, configOptions: configOptions)
            let own = try OwnConfig.open(ws)
            var root = try own.appConfig()
            var alerts = root["alerts"]?.objectValue ?? JSONObject()
            if let url { alerts["webhook"] = .string(url) } else { alerts.removeValue(forKey: "webhook") }
            root["alerts"] = .object(alerts)
            _ = try AlertRules.settings(.object(alerts), source: own.folder.appConfigPath)
            try own.save(appConfig: root)
            Terminal.err(url.map { "alerts are posted to \($0)" } ?? "alerts are posted nowhere")
        }
    }
}
