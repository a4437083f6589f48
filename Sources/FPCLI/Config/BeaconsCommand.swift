import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPStore
import Foundation

/// `fprint beacons`: the registries (`list`, the default) and `import` of a deployed-beacon sheet.
struct BeaconsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacons",
        abstract: "The beacon registry of each map and its health (list, the default); import a deployed-beacon sheet.",
        discussion: """
            Examples:
              fprint beacons
              fprint beacons --health --map J3NP
              fprint beacons import deployed.csv --map J2NP
            """,
        subcommands: [List.self, Import.self], defaultSubcommand: List.self)
}

extension BeaconsCommand {
    struct List: ReportingCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "The beacon registry of each map; with --health, when each beacon was last heard, its RSSI trend, battery and alerts.",
            discussion: """
                A map's registry is beacons/<map>.json in your config folder ($XDG_CONFIG_HOME/fprint; `fprint beacons import` writes it from a spreadsheet), else beside the app config, or --beacons; the list says which file each map's came from. --health reads every stored measurement (any map's: a beacon heard through a floor still counts as heard) for each registry beacon: reports, when it was last heard, the median RSSI of the last --trend-days and its trend (the slope through each day's median, dB per week), and the newest Eddystone-TLM battery voltage and temperature. Alerts: never heard, silent for more than --silent-days, battery below --battery-below mV. With --fail-on-alert the exit status is 3 when any beacon has an alert, for cron.

                Examples:
                  fprint beacons
                  fprint beacons --health --map J3NP
                  fprint beacons --health --silent-days 3 --battery-below 2700 --fail-on-alert
                  fprint beacons --health --json
                """)

        @Option(help: "Only this map (default: every map of the app config that has a registry).") var map: String?
        @Option(help: "Beacon registry file (needs --map; default: beacons/<map>.json in your config folder or beside the app config).", completion: .file())
        var beacons: String?
        @Flag(help: "Add what the stored measurements say of each beacon, and alerts.") var health = false
        @Option(name: .customLong("silent-days"), help: "Alert when a beacon was not heard for more days than this.")
        var silentDays = 7.0
        @Option(name: .customLong("battery-below"), help: "Alert when the newest TLM battery reading is below this (mV).")
        var batteryBelow = 2600
        @Option(name: .customLong("trend-days"), help: "Days of reports the median RSSI and its trend cover, ending now.")
        var trendDays = 30.0
        @Flag(name: .customLong("fail-on-alert"), help: "Exit 3 when any beacon has an alert (implies --health).")
        var failOnAlert = false
        @Flag(help: "One JSON object per beacon and line.") var json = false
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var configOptions: ConfigOptions

        func validate() throws {
            if beacons != nil && map == nil { throw ValidationError("--beacons needs --map: a registry file is one map's") }
            if !(silentDays.isFinite && silentDays > 0) { throw ValidationError("--silent-days must be a number of days above 0") }
            if !(trendDays.isFinite && trendDays > 0) { throw ValidationError("--trend-days must be a number of days above 0") }
            if batteryBelow < 0 { throw ValidationError("--battery-below must be millivolts ≥ 0") }
        }

        func perform() async throws {
            let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
            let loaded = try ws.loadConfig()
            let maps = map.map { [$0] } ?? loaded.appConfig.maps.map(\.id)
            if let map, !loaded.appConfig.maps.contains(where: { $0.id == map }) {
                throw CommandFailure("no map \(map) in \(loaded.source)", .notFound)
            }
            var registries: [(map: String, registry: BeaconRegistry)] = []
            var sources: [String: String] = [:]
            for id in maps {
                if let registry = try BeaconRegistryFile.load(map: id, explicit: beacons, config: loaded, paths: ws.paths) {
                    registries.append((id, registry))
                    sources[id] = beacons ?? BeaconRegistryFile.registryPath(map: id, config: loaded, paths: ws.paths)
                        ?? "beacons/\(id).json served beside \(loaded.source)"
                }
            }
            guard !registries.isEmpty else {
                throw CommandFailure(map.map { "map \($0) has no beacon registry (beacons/\($0).json in your config folder or beside the app config; fprint beacons import makes one)" }
                    ?? "no map has a beacon registry (beacons/<map>.json in your config folder or beside the app config)", .notFound)
            }
            guard health || failOnAlert else { return list(registries, sources: sources) }

            var limits = BeaconLimits()
            limits.silentDays = silentDays
            limits.batteryBelowMilliVolts = batteryBelow
            limits.trendDays = trendDays
            let sightings = try BeaconSightings.read(try ws.openStore(.read), registries: registries.map(\.registry))
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let report = registries.flatMap {
                BeaconHealth.assess(map: $0.map, registry: $0.registry, sightings: sightings, now: now, limits: limits)
            }
            BeaconHealthReport(rows: report, now: now).print(json: json)
            let alerting = report.filter { !$0.alerts.isEmpty }.count
            if !json { Terminal.err("\(Terminal.counted(report.count, "beacon")), \(alerting) with alerts") }
            if failOnAlert && alerting > 0 {
                throw CommandFailure("\(Terminal.counted(alerting, "beacon")) with alerts", .alerts)
            }
        }

        /// Each beacon a row; which file each map's registry came from on stderr (a field of each line in JSON).
        private func list(_ registries: [(map: String, registry: BeaconRegistry)], sources: [String: String]) {
            if json {
                for (map, registry) in registries {
                    for e in registry.entries {
                        var line: JSONObject = ["map": .string(map), "mac": e.mac.map(JSONValue.string) ?? .null,
                                                "x": .double(e.x), "y": .double(e.y)]
                        line["ibeacon"] = e.iBeacon.map { .string($0.text) } ?? .null
                        line["eddystone"] = e.eddystone.map { .string($0.text) } ?? .null
                        line["id"] = .string(e.id)
                        line["floor"] = e.floor.map(JSONValue.string) ?? .null
                        line["measuredPower"] = e.measuredPower.map(JSONValue.double) ?? .null
                        line["name"] = e.name.map(JSONValue.string) ?? .null
                        line["registry"] = sources[map].map(JSONValue.string) ?? .null
                        Terminal.out(CanonicalJSON.string(.object(line)))
                    }
                }
                return
            }
            let rows = registries.flatMap { map, registry in
                registry.entries.map { [map, $0.id, String(format: "%g", $0.x), String(format: "%g", $0.y),
                                        $0.measuredPower.map { String(format: "%g", $0) } ?? "", $0.name ?? ""] }
            }
            for line in Terminal.table(["MAP", "BEACON", "X", "Y", "POWER@1M", "NAME"], rows, rightAligned: [2, 3, 4]) { Terminal.out(line) }
            for (map, registry) in registries {
                Terminal.err("\(map): \(Terminal.counted(registry.entries.count, "beacon")) from \(sources[map] ?? "?")")
            }
        }
    }
}

/// Registry beacons' reports in the stored measurements, by `Entry.id` (MAC, else advertised identity).
enum BeaconSightings {
    /// One pass over every stored document; only the reports of the registries' beacons are kept.
    static func read(_ store: SQLiteDocumentStore, registries: [BeaconRegistry]) throws -> [String: [BeaconSighting]] {
        let read = try store.readDocuments(ListQuery()) { text in BeaconSighting.reports(in: text.body, registries: registries) }
        DamageLog.shared.record(read.damaged)
        var out: [String: [BeaconSighting]] = [:]
        for document in read.documents {
            for (mac, seen) in document { out[mac, default: []] += seen }
        }
        return out
    }
}
