import ArgumentParser
import FPAnalysis
import FPBLE
import FPCore
import FPHCI
import Foundation

/// `fprint regions`: iBeacon regions (CoreLocation's beacon regions).
struct RegionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "Watch iBeacon regions: enter and exit events.",
        subcommands: [RegionsWatch.self])
}

/// `fprint regions watch`: enter/exit events of one region as JSON lines.
struct RegionsWatch: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print enter and exit events of an iBeacon region (UUID, optionally major and minor) as JSON lines.",
        discussion: """
            One JSON line per event: {"event":"enter"|"exit","time":ISO time,"ms":ms since the watch started (a replay: since the capture's start),"region":{"uuid","major","minor"},"beacons":[{"address","uuid","major","minor","rssi","ms"}]}. An enter needs --enter-sightings sightings of the region's beacons within --enter-window seconds (a stray packet is not an arrival); an exit comes once none was heard for --exit-after seconds (its ms is the last sighting's plus that). The beacons of an enter are those that caused it; of an exit, those heard while inside (their last sighting).

            Runs until Ctrl-C or SIGTERM (exit 130), --duration, or the end of a --fast replay (exit 0).

            Examples:
              fprint regions watch --uuid FB0B57A2-8228-44CD-913A-94A122BA1206
              fprint regions watch --uuid FB0B57A2-8228-44CD-913A-94A122BA1206 --major 1 --minor 53 --exit-after 10
              fprint regions watch --uuid FB0B57A2-8228-44CD-913A-94A122BA1206 --ble-source btsnoop:capture.btsnoop --fast
            """)

    @Option(help: "The region's proximity UUID.") var uuid: String
    @Option(help: "Only this major.") var major: Int?
    @Option(help: "Only this minor (needs --major).") var minor: Int?
    @Option(name: .customLong("exit-after"), help: ArgumentHelp("Exit after this many seconds without a sighting.", valueName: "seconds"))
    var exitAfter = 30
    @Option(name: .customLong("enter-sightings"), help: "Sightings that make an enter.") var enterSightings = 2
    @Option(name: .customLong("enter-window"), help: ArgumentHelp("Seconds within which those sightings must fall.", valueName: "seconds"))
    var enterWindow = 10
    @Option(name: .customLong("min-rssi"), parsing: .unconditional, help: "Weaker sightings (dBm) do not count (default: all count).")
    var minRSSI: Int?
    @Option(name: .customLong("ble-source"), help: ArgumentHelp("hci:hci0 (default) or btsnoop:FILE.", valueName: "source"))
    var bleSource: BLESource = .hci(0)
    @Option(help: "Stop after this many seconds (default: until Ctrl-C).") var duration: Int?
    @Flag(help: "With btsnoop:…: replay as fast as possible.") var fast = false
    @Flag(help: "With hci:…: take the adapter exclusively (HCI user channel; adapter must be down).") var exclusive = false
    @Flag(help: "With hci:…: passive scanning.") var passive = false

    func region() throws -> BeaconRegion {
        guard let bytes = BeaconIdentityText.uuid(uuid) else {
            throw CommandFailure("--uuid \(uuid): expected a UUID (32 hex digits, as FB0B57A2-8228-44CD-913A-94A122BA1206)", .usage)
        }
        for (name, value) in [("--major", major), ("--minor", minor)] {
            if let value, !(0...65535).contains(value) { throw CommandFailure("\(name) \(value): expected 0 to 65535", .usage) }
        }
        if minor != nil && major == nil { throw CommandFailure("--minor needs --major: a region is a UUID, a UUID and major, or all three", .usage) }
        return BeaconRegion(uuid: UUIDText.canonical(bytes[...]), major: major, minor: minor)
    }

    func perform() async throws {
        let region = try region()
        if exitAfter < 1 { throw CommandFailure("--exit-after \(exitAfter): expected whole seconds, at least 1", .usage) }
        if enterSightings < 1 { throw CommandFailure("--enter-sightings \(enterSightings): expected at least 1", .usage) }
        if enterWindow < 1 { throw CommandFailure("--enter-window \(enterWindow): expected whole seconds, at least 1", .usage) }
        if let d = duration, d < 1 { throw CommandFailure("--duration \(d): expected whole seconds, at least 1", .usage) }
        if bleSource == .sim { throw CommandFailure("regions watch needs a real or replayed source: hci:hciN or btsnoop:FILE", .usage) }
        if fast, case .hci = bleSource { throw CommandFailure("--fast applies to btsnoop:… replays only", .usage) }
        var monitor = RegionMonitor(region: region)
        monitor.exitAfterMs = exitAfter * 1000
        monitor.enterSightings = enterSightings
        monitor.enterWindowMs = enterWindow * 1000
        monitor.minimumRSSI = minRSSI
        let provider = try BLEFailure.provider(bleSource, explicit: true, exclusive: exclusive, passive: passive)
        let clock: any MeasurementClock = fast ? VirtualClock() : MonotonicClock()
        var endMs = duration.map { $0 * 1000 } ?? Int.max
        if fast, let replay = provider as? BtsnoopReplayProvider { endMs = min(endMs, replay.capture.durationMs) }
        let lastMs = endMs, startedMs = Int64(Date().timeIntervalSince1970 * 1000), start = monitor
        do {
            try await Interrupts.cancellable {
                try await Self.loop(provider: provider, clock: clock, endMs: lastMs, monitor: start, startedMs: startedMs)
            }
        } catch is CancellationError {
            Terminal.err("interrupted: regions watch stopped")
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
    }

    static func loop(provider: any RadioProvider, clock: any MeasurementClock, endMs: Int, monitor: RegionMonitor,
                     startedMs: Int64) async throws {
        var monitor = monitor
        try await BLETicker(provider: provider, clock: clock).run(until: endMs) { t, reports in
            var events: [RegionMonitor.Event] = []
            for s in reports {
                guard let b = s.beacon else { continue }
                events += monitor.observe(.init(address: s.address, beacon: b, rssi: s.rssi, atMs: s.time))
            }
            events += monitor.tick(nowMs: t)
            for e in events { Terminal.out(CanonicalJSON.string(json(e, region: monitor.region, startedMs: startedMs))) }
        }
    }

    static func json(_ e: RegionMonitor.Event, region: BeaconRegion, startedMs: Int64) -> JSONValue {
        var r: JSONObject = ["uuid": .string(region.uuid)]
        if let m = region.major { r["major"] = .int(Int64(m)) }
        if let m = region.minor { r["minor"] = .int(Int64(m)) }
        let beacons = e.beacons.map { s -> JSONValue in
            var o: JSONObject = ["address": .string(s.address), "ms": .int(Int64(s.atMs)),
                                 "rssi": s.rssi.map { JSONValue.int(Int64($0)) } ?? .null]
            if let u = s.beacon.uuid { o["uuid"] = .string(u) }
            if let m = s.beacon.major { o["major"] = .int(Int64(m)) }
            if let m = s.beacon.minor { o["minor"] = .int(Int64(m)) }
            return .object(o)
        }
        return .object([
            "event": .string(e.kind.rawValue), "time": .string(ISOTime.string(millisecondsSince1970: startedMs + Int64(e.atMs))),
            "ms": .int(Int64(e.atMs)), "region": .object(r), "beacons": .array(beacons),
        ])
    }
}
