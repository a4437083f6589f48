import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import Foundation

struct CoverageCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Per measured point, how many beacons are heard above a threshold; flags points with fewer than 3.",
        discussion: """
            A beacon counts when the median RSSI of its reports in the measurement is at least --min-rssi. When the map has a beacon registry (beacons/<map>.json in your config folder or beside the app config, or --beacons) only registry beacons count; otherwise every BLE transmitter does. Trilateration needs three, so points with fewer are flagged; the exit status stays 0 (use --json and jq to act on them).

            Examples:
              fprint coverage --map J3NP
              fprint coverage --map J3NP --min-rssi=-85 --json
            """)

    @OptionGroup var filters: FilterOptions
    @Option(name: .customLong("min-rssi"), parsing: .unconditional, help: "Weakest median RSSI that counts (dBm).")
    var minRSSI = -90.0
    @Option(help: "Beacon registry file (default: beacons/<map>.json in your config folder or beside the app config).", completion: .file())
    var beacons: String?
    @Flag(help: "One JSON object per point and line.") var json = false
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if !(minRSSI.isFinite && minRSSI <= 0) { throw ValidationError("--min-rssi must be a dBm value ≤ 0") }
    }

    func perform() async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: configOptions)
        let store = try ws.openStore(.read)
        let fps = try AnalysisInput.fingerprints(store, filters)
        guard !fps.isEmpty else { throw CommandFailure("no measurements match the filters", .notFound) }
        try Coverage.requireBLE(fps)
        let loaded = try ws.loadConfig()
        // Registry beacons per map (nil: count every BLE transmitter).
        var registries: [String: BeaconRegistry?] = [:]
        for level in Set(fps.map(\.level)) {
            registries[level] = .some(try BeaconRegistryFile.load(map: level, explicit: beacons, config: loaded, paths: ws.paths))
        }
        var points: [Coverage.Point] = []
        for level in Set(fps.map(\.level)).sorted() {
            let onLevel = fps.filter { $0.level == level }
            // A registry beacon counts once, whichever of its addresses were heard (identity first).
            if let registry = registries[level] ?? nil {
                points += Coverage.points(onLevel.map(registry.resolving), minRSSI: minRSSI, beacons: registry.keys)
            } else {
                points += Coverage.points(onLevel, minRSSI: minRSSI, beacons: nil)
            }
        }
        // Back to file order.
        let order = Dictionary(uniqueKeysWithValues: fps.enumerated().map { ($1.id, $0) })
        points.sort { order[$0.id]! < order[$1.id]! }
        if json {
            for p in points {
                let heard: [JSONValue] = p.heard.map { ["id": .string($0.id), "rssi": .double($0.rssi)] }
                Terminal.out(CanonicalJSON.string([
                    "id": .string(p.id), "level": .string(p.level), "x": .int(Int64(p.x)), "y": .int(Int64(p.y)),
                    "beacons": .int(Int64(p.heard.count)), "enough": .bool(p.enough), "heard": .array(heard),
                ]))
            }
        } else {
            let rows = points.map { p in
                [String(p.id.prefix(8)), p.level, String(p.x), String(p.y), String(p.heard.count),
                 p.enough ? "" : "FEWER THAN 3"]
            }
            for line in Terminal.table(["ID", "MAP", "X", "Y", "BEACONS", ""], rows, rightAligned: [2, 3, 4]) {
                Terminal.out(line)
            }
            let short = points.filter { !$0.enough }.count
            Terminal.err("\(Terminal.counted(points.count, "point")), \(short) with fewer than \(Coverage.needed) beacons at ≥ \(Int(minRSSI)) dBm")
        }
    }
}

extension Coverage {
    /// Beacon coverage counts BLE transmitters: measurements without one BLE
    /// reading (a Wi-Fi-only dataset such as UJIIndoorLoc) would show every
    /// place as a gap, which says nothing about their beacons.
    static func requireBLE(_ fps: [Fingerprint]) throws {
        guard fps.allSatisfy(\.ble.isEmpty) else { return }
        let heard = fps.contains { !$0.wifi.isEmpty } ? " (Wi-Fi only)" : ""
        throw CommandFailure("none of the \(Terminal.counted(fps.count, "measurement")) holds a BLE reading\(heard): "
            + "beacon coverage counts BLE beacons", .notFound)
    }
}
