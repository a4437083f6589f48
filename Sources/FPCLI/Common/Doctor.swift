import ArgumentParser
import FPConfig
import FPCore
import FPLinuxRadios
import Foundation

/// `fprint doctor`: what this machine will and will not record, and why.
struct Doctor: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Show which radios and sensors can be recorded here, and why not.",
        discussion: """
            Checks Bluetooth adapters, Wi-Fi interfaces (nl80211), rfkill switches, privileges (CAP_NET_ADMIN for Wi-Fi scans, CAP_NET_RAW for BLE), gpsd, ModemManager, motion sensors (IIO) and the reachability of the app config's gateway. Exits 0 when at least one radio can be recorded, 69 otherwise.

            Examples:
              fprint doctor
              fprint doctor --json
              fprint doctor --gpsd gps-box.local:2947 --wifi-iface wlan1
            """)

    @Flag(help: "Print the capability matrix as one JSON array, an object per capability.") var json = false
    @Option(name: .customLong("gpsd"), help: ArgumentHelp("Where gpsd listens (default: 127.0.0.1:2947).", valueName: "host:port"))
    var gpsd: String?
    @Option(name: .customLong("wifi-iface"), help: ArgumentHelp("Wi-Fi interface to check.", valueName: "name"))
    var wifiInterface: String?
    @OptionGroup var configOptions: ConfigOptions

    func validate() throws {
        if let gpsd, GPSDEndpoint(gpsd) == nil { throw ValidationError("--gpsd must be host, host:port or [ipv6]:port, got '\(gpsd)'") }
    }

    struct Row: Codable {
        var source: String
        var status: String  // ok | unavailable | warning | info
        var detail: String
    }

    func perform() async throws {
        var rows: [Row] = []
        let adapters = HostCapabilities.bluetoothAdapters()
        rows.append(Row(source: "ble", status: adapters.isEmpty ? "unavailable" : "ok",
                        detail: adapters.isEmpty ? "no Bluetooth controller (/sys/class/bluetooth is empty)" : adapters.joined(separator: ", ")))
        let wifi = NL80211Provider(interface: wifiInterface)
        if let reason = wifi.preflightReason() {
            rows.append(Row(source: "wifi", status: "unavailable", detail: reason))
        } else {
            let list = (try? NL80211Provider.interfaces()) ?? []
            rows.append(Row(source: "wifi", status: "ok", detail: list.map { "\($0.name)\($0.station ? "" : " (not a station)")" }.joined(separator: ", ")))
        }
        for r in HostCapabilities.rfkill() {
            let blocked = r.hardBlocked ? "hard-blocked (switch)" : r.softBlocked ? "soft-blocked (rfkill unblock \(r.type))" : "unblocked"
            rows.append(Row(source: "rfkill:\(r.name)", status: r.hardBlocked || r.softBlocked ? "warning" : "ok", detail: "\(r.type) \(blocked)"))
        }
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        if let mask = HostCapabilities.effectiveCapabilities(status: status) {
            for (cap, has) in HostCapabilities.relevantCapabilities(mask).sorted(by: { $0.key < $1.key }) {
                let why = cap == "CAP_NET_ADMIN" ? "Wi-Fi scans are triggered" : "raw HCI sockets for BLE"
                rows.append(Row(source: "privilege", status: has ? "ok" : "warning",
                                detail: has ? "\(cap): \(why)" : "no \(cap): \(cap == "CAP_NET_ADMIN" ? "Wi-Fi reads cached scan results only" : "BLE capture needs it") (\(RadioHelper.permissionAdvice() ?? "run as root or setcap"))"))
            }
        }
        let gpsdProvider = GPSDProvider(endpoint: gpsd.flatMap(GPSDEndpoint.init) ?? .default)
        let gpsReason = gpsdProvider.preflight()
        rows.append(Row(source: "location", status: gpsReason == nil ? "ok" : "unavailable", detail: gpsReason ?? "gpsd at \(gpsdProvider.endpoint)"))
        switch ModemManagerProvider().probe() {
        case .modem(let index, let model): rows.append(Row(source: "cell", status: "ok", detail: "modem \(index)\(model.map { " (\($0))" } ?? "")"))
        case .unavailable(let reason): rows.append(Row(source: "cell", status: "unavailable", detail: reason))
        }
        let motion = IIOMotionSensors().read().status
        rows.append(Row(source: "sensors", status: motion.status.rawValue, detail: motion.reason ?? motion.source))
        let ws = Workspace(configOptions: configOptions)
        if let loaded = try? ws.loadConfig() {
            let url = loaded.appConfig.gatewayURL
            let problem = HostCapabilities.reachable(url: url)
            rows.append(Row(source: "gateway", status: problem == nil ? "ok" : "warning", detail: problem.map { "\(url): \($0)" } ?? "\(url) reachable"))
        } else {
            rows.append(Row(source: "gateway", status: "warning", detail: "no app config could be loaded"))
        }
        if json {
            let data = try JSONEncoder().encode(rows)
            Terminal.out(String(decoding: data, as: UTF8.self))
        } else {
            for line in Terminal.table(["SOURCE", "STATUS", "DETAIL"], rows.map { [$0.source, $0.status, $0.detail] }) { Terminal.out(line) }
        }
        let radios = ["ble", "wifi", "cell", "location"]
        if !rows.contains(where: { radios.contains($0.source) && $0.status == "ok" }) {
            throw ExitCode(ExitStatus.unavailable.rawValue)
        }
    }
}
