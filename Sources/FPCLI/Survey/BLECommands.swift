import ArgumentParser
import FPAnalysis
import FPBLE
import FPCore
import FPTransport
import Foundation

/// `fprint adapters`: the local Bluetooth adapters as the kernel sees them.
struct AdaptersCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List the Bluetooth adapters (index, address, up/down, LE support, manufacturer).",
        discussion: """
            Reads the kernel's adapter list (HCIGETDEVLIST/HCIGETDEVINFO); the manufacturer is asked from adapters that are up.

            Examples:
              fprint adapters
              fprint adapters --json
            """)

    @Flag(help: "One JSON object per adapter and line.") var json = false

    func perform() async throws {
        let list: [AdapterInfo]
        // A typed `do`: `catch let e as HCISocketError` here crashes Swift 6.3.1's SILGen.
        do throws(HCISocketError) { list = try FPTransport.Adapters.list() } catch { throw BLEFailure.failure(error, device: nil) }
        if json {
            for a in list {
                Terminal.out(CanonicalJSON.string(.object([
                    "index": .int(Int64(a.index)), "name": .string(a.name), "address": .string(a.address),
                    "up": .bool(a.up), "le": .bool(a.le), "manufacturer": a.manufacturer.map(JSONValue.string) ?? .null,
                ])))
            }
            return
        }
        guard !list.isEmpty else {
            Terminal.err("no Bluetooth adapter found (the kernel has Bluetooth, but no controller is attached)")
            return
        }
        let rows = list.map { a in
            [String(a.index), a.name, a.address, a.up ? "up" : "down", a.le ? "yes" : "no", a.manufacturer ?? "-"]
        }
        for line in Terminal.table(["INDEX", "NAME", "ADDRESS", "STATE", "LE", "MANUFACTURER"], rows) { Terminal.out(line) }
    }
}

/// Per-transmitter statistics for `fprint scan`.
struct TransmitterStats {
    var address: String
    var count = 0
    var rssis: [Int] = []
    var last: BLEScan

    var medianRSSI: Double? {
        guard !rssis.isEmpty else { return nil }
        let s = rssis.sorted()
        return s.count % 2 == 1 ? Double(s[s.count / 2]) : Double(s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    mutating func add(_ scan: BLEScan) {
        count += 1
        if let r = scan.rssi { rssis.append(r) }
        // Names and beacon ids come in some packets only (scan responses): keep the last known.
        let name = scan.name ?? last.name
        let beacon = scan.beacon ?? last.beacon
        last = scan
        last.name = name
        last.beacon = beacon
    }

    var json: JSONValue {
        var o: JSONObject = [
            "address": .string(address), "count": .int(Int64(count)),
            "lastRssi": last.rssi.map { JSONValue.int(Int64($0)) } ?? .null,
            "medianRssi": medianRSSI.map { JSONValue.double($0) } ?? .null,
            "time": .int(Int64(last.time)),
        ]
        if let t = last.addressType { o["addressType"] = .string(t) }
        if let n = last.name { o["name"] = .string(n) }
        if let b = last.beacon, let v = try? JSONValueEncoder().encode(b) { o["beacon"] = v }
        return .object(o)
    }
}

/// `fprint scan`: a live per-transmitter view, to check a spot before measuring.
struct Scan: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show BLE transmitters live: count, last and median RSSI, beacon id.",
        discussion: """
            One row per transmitter, updated in place on a terminal; piped, one JSON line per transmitter that changed, every second, and at the end (also on Ctrl-C) one per transmitter heard at all. Runs until Ctrl-C or --duration (a --fast replay: to the capture's end). Nothing is stored.

            --reports prints every advertising report instead, as it is heard: one JSON line each with every field a document's bleScans[] entry has (time: ms since the scan started, or since the capture's first record for a replay), and at the end a count on stderr.

            Examples:
              fprint scan
              fprint scan --ble-source hci:hci1 --passive --duration 30
              fprint scan --ble-source btsnoop:capture.btsnoop --fast | jq .
              fprint scan --ble-source btsnoop:capture.btsnoop --fast --reports > reports.jsonl
              fprint scan --proximity --map J1NP

            --proximity shows each iBeacon and Eddystone-UID beacon instead: its proximity (immediate under 0.5 m, near under 3 m, far beyond; unknown without a reading in the last 5 s or without a measured power), its distance (log-distance path loss, exponent 2, from the frame's measured power, else the registry's) and its RSSI (the median of the last 5 s). With --map, only the map's registered beacons, named as the registry names them.
            """)

    @Option(name: .customLong("ble-source"), help: ArgumentHelp("hci:hci0 (default) or btsnoop:FILE.", valueName: "source"))
    var bleSource: BLESource = .hci(0)
    @Option(help: "Stop after this many seconds (default: until Ctrl-C).") var duration: Int?
    @Flag(help: "With btsnoop:…: replay as fast as possible.") var fast = false
    @Flag(help: "With hci:…: take the adapter exclusively (HCI user channel; adapter must be down).") var exclusive = false
    @Flag(help: "With hci:…: passive scanning.") var passive = false
    @Flag(help: "JSON lines even on a terminal.") var json = false
    @Flag(help: "One JSON line per advertising report (every field of bleScans[]) instead of a line per transmitter.")
    var reports = false
    @Flag(help: "Each beacon's distance and proximity (immediate, near, far, unknown) instead.") var proximity = false
    @Option(help: "With --proximity: only this map's registered beacons, with their registry names.") var map: String?
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if map != nil && !proximity { throw ValidationError("--map applies to --proximity only") }
        if proximity && reports { throw ValidationError("--proximity and --reports exclude each other") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        if bleSource == .sim { throw ValidationError("scan needs a real or replayed source: hci:hciN or btsnoop:FILE") }
        if fast, case .hci = bleSource { throw ValidationError("--fast applies to btsnoop:… replays only") }
    }

    func perform() async throws {
        let registry = try map.map { map in
            let ws = Workspace(configOptions: configOptions)
            guard let r = try BeaconRegistryFile.load(map: map, explicit: nil, config: try ws.loadConfig(), paths: ws.paths) else {
                throw CommandFailure("map \(map) has no beacon registry (beacons/\(map).json; fprint beacons import writes one)", .notFound)
            }
            return r
        }
        let provider = try BLEFailure.provider(bleSource, explicit: true, exclusive: exclusive, passive: passive)
        let clock: any MeasurementClock = fast ? VirtualClock() : MonotonicClock()
        // A fast replay ends with the file; otherwise --duration or Ctrl-C.
        var endMs = duration.map { $0 * 1000 } ?? Int.max
        if fast, let replay = provider as? BtsnoopReplayProvider { endMs = min(endMs, replay.capture.durationMs) }
        let view: View = reports ? .reports : (!json && Terminal.stdoutIsTTY ? .table : .lines)
        let lastMs = endMs
        do {
            try await Interrupts.cancellable {
                if proximity {
                    try await ProximityScan.loop(provider: provider, clock: clock, endMs: lastMs,
                                                 live: view == .table, registry: registry)
                } else {
                    try await Self.loop(provider: provider, clock: clock, endMs: lastMs, view: view)
                }
            }
        } catch is CancellationError {
            // Ctrl-C is how a scan normally ends: not an error, nothing was to be stored.
        }
    }

    /// What stdout shows: a table in place, JSON lines per transmitter, or every report.
    enum View { case table, lines, reports }

    static func loop(provider: any RadioProvider, clock: any MeasurementClock, endMs: Int, view: View) async throws {
        let live = view == .table
        let ticker = try await BLETicker(provider: provider, clock: clock)
        var stats: [String: TransmitterStats] = [:]
        var t = 0
        var lastPrint = 0
        // Heard since the last print: a second's worth of 100 ms ticks.
        var changed = Set<String>()
        var reportCount = 0
        defer { if live { Terminal.out("") } }
        do {
            try await ticker.run(until: endMs) { now, reports in
                t = now
                var heard: [String] = []
                for s in reports {
                    stats[s.address, default: TransmitterStats(address: s.address, last: s)].add(s)
                    changed.insert(s.address)
                    if view == .reports { heard.append(CanonicalJSON.string(s.jsonValue)) }
                    reportCount += 1
                }
                // One write per tick: a replay prints thousands of reports a second.
                if !heard.isEmpty { Terminal.out(heard.joined(separator: "\n")) }
                if view != .reports, t - lastPrint >= 1000 || t == endMs {
                    lastPrint = t
                    render(stats, changed: changed, live: live, ms: t)
                    changed.removeAll()
                    // An adapter that went away ends the scan with its reason, not a frozen table.
                    if let hci = provider as? HCIScanProvider, hci.readerHealth?.vanished != nil {
                        throw CommandFailure("BLE: \(hci.currentStatus?.reason ?? "the adapter went away")", .adapterUnavailable)
                    }
                }
            }
        } catch is CancellationError {
            // Ctrl-C or SIGTERM, how a scan usually ends: the closing summary still comes.
        }
        if view == .reports {
            // Reports heard after the last tick (a live reader flushes at stop) still come out.
            let rest = ticker.reports()
            if !rest.isEmpty { Terminal.out(rest.map { CanonicalJSON.string($0.jsonValue) }.joined(separator: "\n")) }
            reportCount += rest.count
            Terminal.err("\(Terminal.counted(reportCount, "advertising report")) from \(Terminal.counted(Set(stats.keys).union(rest.map(\.address)).count, "transmitter"))")
            return
        }
        render(stats, changed: Set(stats.keys), live: live, ms: t)
    }

    static func render(_ stats: [String: TransmitterStats], changed: Set<String>, live: Bool, ms: Int) {
        let sorted = stats.values.sorted { ($0.count, $1.address) > ($1.count, $0.address) }
        if live {
            let rows = sorted.map { s in
                [s.address, s.last.addressType ?? "", String(s.count), s.last.rssi.map(String.init) ?? "n/a",
                 s.medianRSSI.map { String(format: "%.1f", $0) } ?? "n/a", s.last.name ?? "", ReportMapper.label(s.last.beacon)]
            }
            let lines = Terminal.table(["ADDRESS", "TYPE", "COUNT", "LAST", "MEDIAN", "NAME", "BEACON"], rows, rightAligned: [2, 3, 4])
            // Home, clear screen, then the table: an in-place view.
            Terminal.out("\u{1B}[H\u{1B}[2J" + "fprint scan: \(Terminal.counted(stats.count, "transmitter")), \(ms / 1000) s\n" + lines.joined(separator: "\n"))
        } else {
            for s in sorted where changed.contains(s.address) { Terminal.out(CanonicalJSON.string(s.json)) }
        }
    }
}
