import ArgumentParser
import FPCore
import FPLinuxRadios

/// Where the measurement database lives.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "SQLite database file (default: $FPRINT_DB, else $XDG_DATA_HOME/fprint/fprint.sqlite).",
        valueName: "path"))
    var db: String?
}

/// Which app config (maps, scenarios, gateway) to use.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "App config file or http(s) URL (default: $FPRINT_CONFIG, else the config-url setting, else the shipped Config/app-config.json).",
        valueName: "path-or-url"))
    var config: String?
}

/// Radios and their sources for measure and walk.
struct CaptureOptions: ParsableArguments {
    @Flag(help: "Use simulated radios from the map's radio environment (Config/environments/<map>.json); documents say so.")
    var simulate = false

    @Flag(help: "With --simulate or a btsnoop:… replay: run time as fast as possible (the document records a virtual clock).")
    var fast = false

    @Flag(help: "With walk or track --simulate: the ideal radio law alone, instead of a building as unkind as a real one (shadowing that stays put, another device, beacons drifted or dead; docs/positioning.md).")
    var ideal = false

    @Option(help: "With --simulate: seed of the simulated radios (default: a fresh one each run, printed and stored as providers.<radio>.seed).")
    var seed: UInt64?

    @Option(name: .customLong("ble-source"), help: ArgumentHelp(
        "Where BLE comes from: hci:hci0 (kernel HCI socket, the default), btsnoop:FILE (replay a btmon/Android capture; documents say replay) or sim (the map's simulated environment).",
        valueName: "source"))
    var bleSource: BLESource?

    @Flag(help: "With hci:…: take the adapter exclusively (HCI user channel); the adapter must be down and bluetoothd loses it meanwhile.")
    var exclusive = false

    @Flag(help: "With hci:…: passive scanning (no scan requests, so no scan responses).")
    var passive = false
    @Option(name: .customLong("gpsd"), help: ArgumentHelp(
        "Where gpsd listens (default: 127.0.0.1:2947).", valueName: "host:port"))
    var gpsd: String?

    @Option(name: .customLong("wifi-iface"), help: ArgumentHelp(
        "Wi-Fi interface to scan on (default: the first nl80211 interface; see `fprint doctor`).", valueName: "name"))
    var wifiInterface: String?

    @Flag(name: .customLong("keep-raw"), help: "Attach to each document the raw HCI capture (btsnoop) of its window, as evidence (needs --ble-source hci:… or btsnoop:FILE).")
    var keepRaw = false
    @Flag(name: .customLong("no-ble"), help: "Do not record BLE.") var noBLE = false
    @Flag(name: .customLong("no-wifi"), help: "Do not record Wi-Fi.") var noWiFi = false
    @Flag(name: .customLong("no-cell"), help: "Do not record cellular cells.") var noCell = false
    @Flag(name: .customLong("no-location"), help: "Do not record GNSS fixes.") var noLocation = false

    func validate() throws {
        if fast && !simulate && !replaysBLE {
            throw ValidationError("--fast needs --simulate or --ble-source btsnoop:FILE: real radios run in real time")
        }
        if exclusive {
            switch bleSource {
            case nil, .hci?: break
            default: throw ValidationError("--exclusive applies to --ble-source hci:… only")
            }
        }
        if seed != nil && !simulate { throw ValidationError("--seed needs --simulate") }
        if let seed, seed > UInt64(Int64.max) { throw ValidationError("--seed must be at most \(Int64.max)") }
        if keepRaw {
            let rawSource: Bool
            switch bleSource {
            case .hci?, .btsnoop?: rawSource = true
            case nil: rawSource = !simulate
            case .sim?: rawSource = false
            }
            guard rawSource && !noBLE else {
                throw ValidationError("--keep-raw keeps what the Bluetooth controller sent: it needs BLE from --ble-source hci:… or btsnoop:FILE")
            }
        }
        if let gpsd, GPSDEndpoint(gpsd) == nil {
            throw ValidationError("--gpsd must be host, host:port or [ipv6]:port with a port 1–65535, got '\(gpsd)'")
        }
        if let wifiInterface, wifiInterface.isEmpty || wifiInterface.count > 15 || wifiInterface.contains("/") {
            throw ValidationError("--wifi-iface must be a network interface name (1–15 characters), got '\(wifiInterface)'")
        }
    }

    var replaysBLE: Bool { if case .btsnoop? = bleSource { true } else { false } }

    /// The radios to record: the settings' radios minus the --no-… flags.
    func radios(enabled: [Radio]) throws -> Set<Radio> {
        var set = Set(enabled)
        if noBLE { set.remove(.ble) }
        if noWiFi { set.remove(.wifi) }
        if noCell { set.remove(.cell) }
        if noLocation { set.remove(.location) }
        if set.isEmpty {
            throw CommandFailure("every radio is turned off: keep at least one (see `fprint config get radios`)", .usage)
        }
        return set
    }
}
