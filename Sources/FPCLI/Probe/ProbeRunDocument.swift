import FPCore
import FPProbe
import Foundation

/// One run of `fprint probe --every` as a stored document: `mode` `probe`
/// (not a fingerprint: eval, locate and plots of signals pass it over),
/// its time, the device, the place when given (map, x, y) and the probe in
/// `networkProbes[]` as `measure --probe` stores one, with the link it ran
/// over (`link`) and a GNSS fix at its start and end (`gnssStart`,
/// `gnssEnd`) when gpsd gave them.
enum ProbeRunDocument {
    static let mode = "probe"

    struct Place {
        var map: String
        var point: MapPoint
        /// How the place is known: "given" (--x/--y) or "gnss" (--here).
        var rule: String
        /// With "gnss": the fix's horizontal accuracy, metres.
        var accuracyM: Double?
    }

    static func body(_ report: ProbeReport, place: Place?, startedAt: Date, endedAt: Date, device: DeviceSnapshot,
                     gnss: ProbeGNSS.Fixes, run: Int) -> JSONValue {
        let point = place?.point ?? MapPoint(x: 0, y: 0)
        var probe = place == nil ? report.json : NetworkProbeEntry.json(report, start: point, end: point)
        if let link = report.interface { probe["link"] = linkJSON(link) }
        if let first = gnss.first { probe["gnssStart"] = first.json }
        if let last = gnss.last { probe["gnssEnd"] = last.json }
        var o: JSONObject = [
            "mode": .string(mode), "schemaVersion": .int(Int64(MeasurementDocument.schemaVersion)),
            "startTime": .string(ISOTime.string(startedAt)), "endTime": .string(ISOTime.string(endedAt)),
            "createdAt": .string(ISOTime.string(endedAt)),
            "durationMs": .int(Int64((endedAt.timeIntervalSince(startedAt) * 1000).rounded())),
            "deviceId": .string(device.deviceId), "hostname": .string(device.hostname), "hardware": .string(device.hardware),
            "osName": .string(device.osName), "osId": .string(device.osId), "batteryState": .string(device.batteryState),
            MeasurementDocument.ownerKey: "-", "appVersion": .string("fprint \(Fprint.version)"),
            "monitorRun": .int(Int64(run)), "networkProbes": .array([probe]),
            "providers": ["location": gnss.status],
        ]
        if let level = device.batteryLevel { o["batteryLevel"] = .double(level) }
        if let place {
            o["level"] = .string(place.map)
            o["x"] = .int(Int64(place.point.x.rounded()))
            o["y"] = .int(Int64(place.point.y.rounded()))
            var position: JSONObject = ["x": .double(place.point.x), "y": .double(place.point.y), "rule": .string(place.rule)]
            if let accuracy = place.accuracyM { position["accuracyM"] = .double(accuracy) }
            o["position"] = .object(position)
        }
        return .object(o)
    }

    /// `link`: the interface the probe's traffic left by, what kind it is, and
    /// the Wi-Fi network (with its signal and frequency) or the cellular
    /// operator and serving cell it was on.
    static func linkJSON(_ link: ProbeInterface) -> JSONValue {
        var o: JSONObject = ["interface": .string(link.name), "kind": .string(link.type)]
        if let ssid = link.ssid { o["ssid"] = .string(ssid) }
        if let bssid = link.bssid { o["bssid"] = .string(bssid) }
        if let signal = link.signalDBm { o["signalDbm"] = .int(Int64(signal)) }
        if let frequency = link.frequencyMHz { o["frequencyMHz"] = .int(Int64(frequency)) }
        if let name = link.operator { o["operator"] = .string(name) }
        if let cell = link.cell, let json = try? CanonicalJSON.value(of: cell) { o["cell"] = json }
        return .object(o)
    }

    /// `fprint show` of a probe run: when, where, over which link, GNSS, then the probe's figures.
    static func showLines(id: String, rev: String, body: JSONValue) -> [String] {
        var lines = ["probe run \(id) (rev \(rev)), #\(body["monitorRun"]?.intValue ?? 0) of its monitoring"]
        lines.append("time      \(body["startTime"]?.stringValue ?? "?") … \(body["endTime"]?.stringValue ?? "?")")
        if let level = body["level"]?.stringValue {
            lines.append("place     \(level) (\(body["x"]?.intValue ?? 0), \(body["y"]?.intValue ?? 0))")
        }
        lines.append("device    \(body["hostname"]?.stringValue ?? "?"), \(body["osName"]?.stringValue ?? "?")")
        for probe in body["networkProbes"]?.arrayValue ?? [] {
            for (key, label) in [("gnssStart", "GNSS at the start"), ("gnssEnd", "GNSS at the end")] {
                guard let fix = probe[key] else { continue }
                lines.append(String(format: "%@  %.6f, %.6f", label, fix["lat"]?.doubleValue ?? 0, fix["long"]?.doubleValue ?? 0)
                    + (fix["accuracy"]?.doubleValue.map { String(format: " ±%.0f m", $0) } ?? ""))
            }
        }
        if let location = body["providers"]?["location"], location["status"]?.stringValue != "ok" {
            lines.append("GNSS      none (\(location["reason"]?.stringValue ?? "unavailable"))")
        }
        lines.append("")
        return lines.map(ControlText.escaped) + RenderProbes.lines(body["networkProbes"]?.arrayValue ?? [])
    }
}
