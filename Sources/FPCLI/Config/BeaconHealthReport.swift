import FPAnalysis
import FPCore
import Foundation

/// `fprint beacons --health` output: a table, or a JSON object per beacon.
struct BeaconHealthReport {
    let rows: [BeaconHealth]
    let now: Int64

    func print(json: Bool) {
        if json {
            for h in rows { Terminal.out(CanonicalJSON.string(Self.json(h))) }
            return
        }
        let cells = rows.map(cells)
        // BEACON: a registry entry is its MAC, or the identity it advertises (ibeacon:…, eddystone:…).
        let header = ["MAP", "BEACON", "REPORTS", "LAST HEARD", "MEDIAN dBm", "dB/WEEK", "BATTERY mV", "TEMP °C", "ALERTS"]
        for line in Terminal.table(header, cells, rightAligned: [2, 4, 5, 6, 7]) { Terminal.out(line) }
    }

    private func cells(_ h: BeaconHealth) -> [String] {
        let heard: String = h.lastHeard.map { age($0) } ?? "never"
        let median: String = h.medianRSSI.map { decimal($0) } ?? ""
        let trend: String = h.trendPerWeek.map { signed($0) } ?? ""
        let battery: String = h.batteryMilliVolts.map { String($0) } ?? ""
        let temperature: String = h.temperature.map { decimal($0) } ?? ""
        let alerts: String = h.alerts.map(\.description).joined(separator: ", ")
        return [h.map, h.mac, String(h.reports), heard, median, trend, battery, temperature, alerts]
    }

    static func json(_ h: BeaconHealth) -> JSONValue {
        var o: JSONObject = [
            // "beacon" names the entry as the table does; "mac" stays for scripts written before identities.
            "map": .string(h.map), "beacon": .string(h.mac), "mac": .string(h.mac), "x": .double(h.x), "y": .double(h.y), "reports": .int(Int64(h.reports)),
            "alerts": .array(h.alerts.map { alert in
                var a: JSONObject = ["kind": .string(alert.kind), "text": .string(alert.description)]
                switch alert {
                case .silent(let days): a["days"] = .double((days * 10).rounded(.down) / 10)
                case .lowBattery(let mv): a["batteryMilliVolts"] = .int(Int64(mv))
                case .neverHeard: break
                }
                return .object(a)
            }),
        ]
        o["lastHeard"] = h.lastHeard.map { .string(ISOTime.string(millisecondsSince1970: $0)) } ?? .null
        o["medianRssi"] = h.medianRSSI.map(JSONValue.double) ?? .null
        o["trendDbPerWeek"] = h.trendPerWeek.map { .double(($0 * 100).rounded() / 100) } ?? .null
        o["batteryMilliVolts"] = h.batteryMilliVolts.map { .int(Int64($0)) } ?? .null
        o["temperature"] = h.temperature.map(JSONValue.double) ?? .null
        return .object(o)
    }

    /// "3 h ago", "12 d ago".
    private func age(_ ms: Int64) -> String {
        let minutes = max(0, now - ms) / 60_000
        if minutes < 60 { return "\(minutes) min ago" }
        if minutes < 48 * 60 { return "\(minutes / 60) h ago" }
        return "\(minutes / 1440) d ago"
    }

    /// One decimal; a value that rounds to zero is "0.0", never "-0.0".
    private func decimal(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return String(format: "%.1f", rounded == 0 ? 0 : rounded)
    }

    private func signed(_ value: Double) -> String { (value >= 0 ? "+" : "") + decimal(value) }
}
