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
    @Flag(help: "With --every and --map: place each run where GNSS says it started (the map needs a geo anchor: `fprint map edit MAP --geo`).")
    var here = false
    @Option(name: .customLong("gpsd"), help: ArgumentHelp("With --every: where gpsd listens (default 127.0.0.1:2947).", valueName: "host:port"))
    var gpsd: String?
    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if every == nil {
            let given = [count != nil ? "--count" : nil, forDuration != nil ? "--for" : nil, map != nil ? "--map" : nil,
                         x != nil ? "--x" : nil, y != nil ? "--y" : nil, gpsd != nil ? "--gpsd" : nil,
                         here ? "--here" : nil].compactMap { $0 }
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
        if here {
            if x != nil || y != nil { throw ValidationError("--here takes the place from GNSS: give --map without --x and --y") }
            if map == nil { throw ValidationError("--here needs --map: GNSS cannot tell a building's floors apart") }
        } else if (map == nil) != (x == nil) || (map == nil) != (y == nil) {
            throw ValidationError("give the place whole: --map, --x and --y together (or none of them)")
        }
        if let gpsd, GPSDEndpoint(gpsd) == nil {
            throw ValidationError("--gpsd must be host, host:port or [ipv6]:port with a port 1–65535, got '\(gpsd)'")
        }
    }

    func monitor(_ options: ProbeOptions, json: Bool, workspace: Workspace) async throws {
        let ws = Workspace(storeOptions: storeOptions, configOptions: workspace.configOptions)
        var place: ProbeMonitor.Place?
        if let map {
            let info = try ws.map(map, in: try ws.loadConfig())
            if let x, let y {
                let point = MapPoint(x: x, y: y)
                if let why = info.offMap(point) { throw CommandFailure("\(why); a probe run is stored at a place on the map", .usage) }
                place = .given(.init(map: info.id, point: point, rule: "given"))
            } else {
                guard info.geo != nil else {
                    throw CommandFailure("map \(info.id) has no geo anchor, so GNSS fixes cannot be placed on it: give it one with `fprint map edit \(info.id) --geo \"LAT,LONG X,Y BEARING\"`", .usage)
                }
                place = .fromGNSS(info)
            }
        }
        let store = try ws.openStore(.write)
        try Rescue.preflight(store, ws)
        let monitor = ProbeMonitor(options: options, intervalS: PeriodicSchedule.seconds(every!)!, count: count,
                                   forS: forDuration.flatMap(PeriodicSchedule.seconds), place: place,
                                   gnss: ProbeGNSS(endpoint: gpsd.flatMap(GPSDEndpoint.init) ?? .default), json: json)
        try await monitor.run(store: store, ws: ws)
    }
}
