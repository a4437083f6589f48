import ArgumentParser
import FPConfig
import FPCore
import FPLinuxRadios
import FPProbe

/// `fprint probe --every …`: periodic probe runs stored as documents.
struct ProbeMonitorOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Monitor: one probe run every interval (e.g. 30s, 10m, 1h), each stored as a document.", valueName: "interval"))
    var every: String?
    @Option(help: "With --every: stop after this many runs.") var count: Int?
    @Option(name: .customLong("for"), help: ArgumentHelp("With --every: stop after this much time (e.g. 24h).", valueName: "duration"))
    var forDuration: String?
    @Option(help: "With --every: the map the runs are made on (with --x and --y).") var map: String?
    @Option(help: "With --map: x in map units.") var x: Double?
    @Option(help: "With --map: y in map units.") var y: Double?
    @Option(name: .customLong("gpsd"), help: ArgumentHelp("With --every: where gpsd listens (default 127.0.0.1:2947).", valueName: "host:port"))
    var gpsd: String?
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if every == nil {
            let given = [count != nil ? "--count" : nil, forDuration != nil ? "--for" : nil, map != nil ? "--map" : nil,
                         x != nil ? "--x" : nil, y != nil ? "--y" : nil, gpsd != nil ? "--gpsd" : nil].compactMap { $0 }
            if let first = given.first { throw ValidationError("\(first) needs --every (monitoring)") }
            return
        }
        guard let every, PeriodicSchedule.seconds(every) != nil else {
            throw ValidationError("--every must be a whole number above 0 with s, m or h (e.g. 30s, 10m, 1h), got '\(every ?? "")'")
        }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let forDuration, PeriodicSchedule.seconds(forDuration) == nil {
            throw ValidationError("--for must be a whole number above 0 with s, m or h (e.g. 8h), got '\(forDuration)'")
        }
        if (map == nil) != (x == nil) || (map == nil) != (y == nil) {
            throw ValidationError("give the place whole: --map, --x and --y together (or none of them)")
        }
        if let gpsd, GPSDEndpoint(gpsd) == nil {
            throw ValidationError("--gpsd must be host, host:port or [ipv6]:port with a port 1–65535, got '\(gpsd)'")
        }
    }

    func monitor(_ options: ProbeOptions, json: Bool, workspace: Workspace) async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: workspace.configOptions)
        var place: ProbeRunDocument.Place?
        if let map, let x, let y {
            let info = try ws.map(map, in: try ws.loadConfig())
            let point = MapPoint(x: x, y: y)
            if let why = info.offMap(point) { throw CommandFailure("\(why); a probe run is stored at a place on the map", .usage) }
            place = .init(map: info.id, point: point)
        }
        let store = try ws.openStore(.write)
        try Rescue.preflight(store, ws)
        let monitor = ProbeMonitor(options: options, intervalS: PeriodicSchedule.seconds(every!)!, count: count,
                                   forS: forDuration.flatMap(PeriodicSchedule.seconds), place: place,
                                   gnss: ProbeGNSS(endpoint: gpsd.flatMap(GPSDEndpoint.init) ?? .default), json: json)
        try await monitor.run(store: store, ws: ws)
    }
}
