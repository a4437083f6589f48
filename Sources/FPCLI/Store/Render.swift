import FPCore
import Foundation

/// Human-readable views of documents for `fprint list` and `fprint show`.
enum Render {
    static func listLines(_ items: [DocumentSummary], groupByDay: Bool) -> [String] {
        if items.isEmpty { return ["no measurements"] }
        let header = ["ID", "TIME", "MAP", "X", "Y", "MODE", "BLE", "WIFI", "CELL", "GEO", "SYNC"]
        func row(_ s: DocumentSummary) -> [String] {
            let time = groupByDay ? String(s.createdAt.dropFirst(11).prefix(8)) : s.createdAt
            let mode = s.mode == "walk" ? "walk#\(s.seq.map(String.init) ?? "?")" : s.mode
            return [String(s.id.prefix(8)), time, s.level, String(Int(s.x.rounded())), String(Int(s.y.rounded())), mode,
                    String(s.bleCount), String(s.wifiCount), String(s.cellCount), String(s.geoCount),
                    s.synced ? "yes" : s.deleted ? "no (deleted)" : "no"]
        }
        let right: Set<Int> = [3, 4, 6, 7, 8, 9]
        guard groupByDay else { return Terminal.table(header, items.map(row), rightAligned: right) }
        var lines: [String] = []
        var day = ""
        var chunk: [DocumentSummary] = []
        func flush() {
            guard !chunk.isEmpty else { return }
            lines.append("\(ControlText.escaped(day)) (\(chunk.count) measurement\(chunk.count == 1 ? "" : "s"))")
            lines.append(contentsOf: Terminal.table(header, chunk.map(row), rightAligned: right).map { "  " + $0 })
            lines.append("")
            chunk = []
        }
        for s in items {
            let d = String(s.createdAt.prefix(10))
            if d != day { flush(); day = d }
            chunk.append(s)
        }
        flush()
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// `samples`: every sample in time order; otherwise one row per transmitter (`RenderSummary`).
    static func showLines(id: String, rev: String, doc: MeasurementDocument, synced: Bool, conflicts: [String],
                          attachments: [String] = [], samples: Bool = false, networkProbes: [JSONValue] = []) -> [String] {
        var lines: [String] = []
        func section(_ title: String) {
            if !lines.isEmpty { lines.append("") }
            lines.append("== \(title) ==")
        }
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            lines.append("  " + name.padding(toLength: 16, withPad: " ", startingAt: 0) + ControlText.escaped(value))
        }
        func status(_ key: String) -> String {
            guard let s = doc.providers[key] else { return "not recorded" }
            var text = s.status.rawValue + " (\(s.source)\(s.simulated ? ", simulated" : ""))"
            if let r = s.reason { text += ": \(r)" }
            return text
        }

        section("Measurement")
        field("id", id)
        field("revision", rev)
        field("map", doc.level)
        let exact = doc.position.map { String(format: " (exact %.1f, %.1f; %@)", $0.x, $0.y, $0.rule) } ?? ""
        field("position", "x \(doc.x), y \(doc.y)" + exact)
        field("mode", doc.mode.rawValue)
        if doc.mode == .walk {
            field("session", doc.sessionId)
            field("seq", doc.seq.map(String.init))
            field("scenario", doc.scenarioId)
            if let w = doc.window { field("window", "\(w.startMs)–\(w.endMs) ms of the walk") }
        }
        field("start", doc.startTime)
        field("end", doc.endTime)
        field("duration", "\(doc.durationMs) ms" + (doc.clock == "virtual" ? " (virtual clock)" : ""))
        field("device", [doc.hostname, doc.hardware].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", "))
        field("os", [doc.osName, doc.osId].filter { !$0.isEmpty }.joined(separator: " "))
        field("battery", doc.batteryLevel.map { String(format: "%.0f %% %@", $0 * 100, doc.batteryState) }
            ?? "not available")
        field("owner", doc.couchbase_sync_gateway_id)
        field("synced", synced ? "yes" : "no")
        if !conflicts.isEmpty { field("conflicts", conflicts.joined(separator: ", ")) }
        for (n, attachment) in attachments.enumerated() { field(n == 0 ? "attachments" : "", attachment) }
        field("schema", String(doc.schemaVersion))

        section("Cellular (\(doc.cellScans.count))")
        lines.append("  status: \(status("cell"))")
        if !doc.cellScans.isEmpty, !samples {
            lines += RenderSummary.cellular(doc.cellScans).map { "  " + $0 }
        } else if !doc.cellScans.isEmpty {
            let rows = doc.cellScans.sorted { $0.time < $1.time }.map { c -> [String] in
                let plmn: String = c.mcc.map { "\($0)-\(c.mnc ?? "?")" } ?? ""
                let numbers: [String] = [c.cid, c.lac, c.psc, c.rssi].map { $0.map(String.init) ?? "" }
                return [String(c.time), c.type ?? "", plmn] + numbers + [c.serving == true ? "serving" : ""]
            }
            lines += Terminal.table(["TIME", "TYPE", "PLMN", "CID", "LAC", "PSC", "RSSI", ""], rows,
                                    rightAligned: [0, 3, 4, 5, 6]).map { "  " + $0 }
        }

        section("Wi-Fi (\(doc.wifiScans.count))")
        lines.append("  status: \(status("wifi"))")
        if !doc.wifiScans.isEmpty, !samples {
            lines += RenderSummary.wifi(doc.wifiScans).map { "  " + $0 }
        } else if !doc.wifiScans.isEmpty {
            let rows = doc.wifiScans.sorted { ($0.time, $0.mac) < ($1.time, $1.mac) }.map { w -> [String] in
                let freq: String = w.frequency.map(String.init) ?? ""
                let channel: String = w.channel.map(String.init) ?? ""
                return [String(w.time), w.mac, w.ssid, freq, channel, String(w.rssi)]
            }
            lines += Terminal.table(["TIME", "BSSID", "SSID", "FREQ", "CH", "RSSI"], rows,
                                    rightAligned: [0, 3, 4, 5]).map { "  " + $0 }
        }

        section("BLE (\(Terminal.counted(doc.bleScans.count, "report")), \(Terminal.counted(Set(doc.bleScans.map(\.address)).count, "transmitter")))")
        lines.append("  status: \(status("ble"))")
        if !doc.bleScans.isEmpty, !samples {
            lines += RenderSummary.ble(doc.bleScans).map { "  " + $0 }
        } else if !doc.bleScans.isEmpty {
            let rows = doc.bleScans.sorted { ($0.time, $0.address) < ($1.time, $1.address) }.map { b -> [String] in
                let rssi: String = b.rssi.map(String.init) ?? "n/a"
                let label: String = beaconText(b.beacon) ?? b.name ?? ""
                return [String(b.time), b.address, b.addressType ?? "", rssi, label]
            }
            lines += Terminal.table(["TIME", "ADDRESS", "TYPE", "RSSI", "BEACON / NAME"], rows,
                                    rightAligned: [0, 3]).map { "  " + $0 }
        }

        section("Geolocation (\(doc.geolocation.count))")
        lines.append("  status: \(status("location"))")
        if !doc.geolocation.isEmpty {
            let rows = doc.geolocation.sorted { $0.time < $1.time }.map { g -> [String] in
                let alt: String = g.alt.map { String(format: "%.1f", $0) } ?? ""
                let acc: String = g.accuracy.map { String(format: "%.1f", $0) } ?? ""
                return [String(g.time), String(format: "%.6f", g.lat), String(format: "%.6f", g.long), alt, acc]
            }
            lines += Terminal.table(["TIME", "LAT", "LONG", "ALT", "ACC(m)"], rows,
                                    rightAligned: [0, 1, 2, 3, 4]).map { "  " + $0 }
        }
        if !networkProbes.isEmpty {
            section("Network probes (\(networkProbes.count))")
            lines += RenderProbes.lines(networkProbes).map { "  " + $0 }
        }
        return lines
    }

    static func beaconText(_ b: Beacon?) -> String? {
        guard let b else { return nil }
        switch b.type {
        case "ibeacon", "altbeacon":
            return "\(b.type) \(b.uuid ?? "?") \(b.major.map(String.init) ?? "?")/\(b.minor.map(String.init) ?? "?")"
        case "eddystone-uid": return "eddystone-uid \(b.namespace ?? "?")/\(b.instance ?? "?")"
        case "eddystone-url": return "eddystone-url \(b.url ?? "?")"
        default: return b.type
        }
    }
}
