import FPCore
import Foundation

/// Exports of stored documents in shapes other tools read. Pure: documents
/// in (id + body, in file order), text out; the CLI writes the files.
package enum Export {
    package struct Document: Sendable {
        package var id: String
        package var body: JSONValue
        package init(id: String, body: JSONValue) {
            self.id = id
            self.body = body
        }
    }

    /// `{"rows":[{"id":…,"value":<document>}]}`: what radio-localization-eval's
    /// FileDataProvider reads (a CouchDB view result), and what `fprint import` reads back.
    package static func couchView(_ docs: [Document]) -> String {
        var out = "{\"rows\":[\n"
        for (i, d) in docs.enumerated() {
            out += "{\"id\":" + CanonicalJSON.string(.string(d.id)) + ",\"key\":null,\"value\":" + CanonicalJSON.string(d.body) + "}"
            out += i == docs.count - 1 ? "\n" : ",\n"
        }
        return out + "]}\n"
    }

    /// One document per line with its `_id` (no `_rev`: a revision belongs to a database).
    package static func jsonLines(_ docs: [Document]) -> String {
        var out = ""
        for d in docs {
            var body = d.body
            body["_id"] = .string(d.id)
            out += CanonicalJSON.string(body) + "\n"
        }
        return out
    }

    /// A text cell as an RFC 4180 field: quoted when it holds a comma, quote or
    /// line break. SSIDs and BLE names are chosen by whoever runs the
    /// transmitter, and a spreadsheet runs a cell starting with `=`, `+`, `-`,
    /// `@`, tab or carriage return as a formula; such text gets a leading `'`
    /// inside quotes (OWASP's CSV-injection advice), which spreadsheets show
    /// as text. Numbers must not come here: `-71` stays a number (`csvCell`).
    package static func csvField(_ s: String) -> String {
        let formula = s.unicodeScalars.first.map { formulaStarts.contains($0) } ?? false
        guard formula || s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        return "\"" + (formula ? "'" : "") + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// First characters that make a spreadsheet cell a formula (OWASP, CSV Injection).
    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    /// A cell from a document value: JSON numbers and booleans as they are,
    /// strings as text through `csvField` (an imported document may hold text anywhere).
    package static func csvCell(_ v: JSONValue?) -> String {
        if case .string(let s)? = v { return csvField(s) }
        return text(v)
    }

    static func text(_ v: JSONValue?) -> String {
        switch v {
        case .string(let s)?: s
        case .int(let i)?: String(i)
        case .numberText(let text)?: text
        case .double(let d)?: d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b)?: b ? "true" : "false"
        default: ""
        }
    }

    /// A cell's transmitter id: `CELL:<type>:<mcc>-<mnc>:<lac>:<cid>`.
    static func cellID(_ c: JSONValue) -> String {
        "CELL:\(text(c["type"])):\(text(c["mcc"]))-\(text(c["mnc"])):\(text(c["lac"])):\(text(c["cid"]))"
    }

    package static let csvHeader =
        "doc_id,created_at,map,x,y,mode,session_id,seq,radio,transmitter,name,rssi,time_ms,frequency,channel"

    /// One row per observation (BLE report, Wi-Fi BSS, cell), transmitter ids as eval uses them.
    package static func csv(_ docs: [Document]) -> String {
        var out = csvHeader + "\n"
        for d in docs {
            let b = d.body
            let common = [csvField(d.id)]
                + [b["createdAt"], b["level"], b["x"], b["y"], b["mode"], b["sessionId"], b["seq"]].map(csvCell)
            func row(_ radio: String, _ id: String, _ name: JSONValue?, _ item: JSONValue) {
                let cells = common + [radio, csvField(id), csvCell(name)]
                    + [item["rssi"], item["time"], item["frequency"], item["channel"]].map(csvCell)
                out += cells.joined(separator: ",") + "\n"
            }
            for s in b["bleScans"]?.arrayValue ?? [] {
                row("ble", Fingerprint.bleID(text(s["address"])), s["name"], s)
            }
            for s in b["wifiScans"]?.arrayValue ?? [] { row("wifi", Fingerprint.wifiID(text(s["mac"])), s["ssid"], s) }
            for s in b["cellScans"]?.arrayValue ?? [] { row("cell", cellID(s), nil, s) }
        }
        return out
    }

    /// The mean of a document's GNSS fixes (lat, long, alt, accuracy), nil without fixes.
    static func fix(_ body: JSONValue) -> (lat: Double, long: Double, alt: Double?, accuracy: Double?)? {
        let fixes = (body["geolocation"]?.arrayValue ?? []).compactMap { f -> (Double, Double, Double?, Double?)? in
            guard let lat = f["lat"]?.doubleValue, let long = f["long"]?.doubleValue else { return nil }
            return (lat, long, f["alt"]?.doubleValue, f["accuracy"]?.doubleValue)
        }
        guard !fixes.isEmpty else { return nil }
        let n = Double(fixes.count)
        let alts = fixes.compactMap(\.2), accs = fixes.compactMap(\.3)
        return (fixes.map(\.0).reduce(0, +) / n, fixes.map(\.1).reduce(0, +) / n,
                alts.isEmpty ? nil : alts.reduce(0, +) / Double(alts.count),
                accs.isEmpty ? nil : accs.reduce(0, +) / Double(accs.count))
    }

    /// GeoJSON FeatureCollection: one Point per document with GNSS fixes (their
    /// mean, [long, lat] as RFC 7946 orders them). Returns the text and how
    /// many documents had no fix.
    package static func geoJSON(_ docs: [Document]) -> (text: String, withoutFix: Int) {
        var features: [JSONValue] = []
        var missing = 0
        for d in docs {
            guard let f = fix(d.body) else { missing += 1; continue }
            let b = d.body
            var properties: JSONObject = [
                "id": .string(d.id), "level": b["level"] ?? .null, "x": b["x"] ?? .null, "y": b["y"] ?? .null,
                "createdAt": b["createdAt"] ?? .null, "mode": b["mode"] ?? .null,
                "ble": .int(Int64(b["bleScans"]?.arrayValue?.count ?? 0)),
                "wifi": .int(Int64(b["wifiScans"]?.arrayValue?.count ?? 0)),
            ]
            if let acc = f.accuracy { properties["accuracy"] = .double(acc) }
            var coordinates: [JSONValue] = [.double(f.long), .double(f.lat)]
            if let alt = f.alt { coordinates.append(.double(alt)) }
            features.append(["type": "Feature", "geometry": ["type": "Point", "coordinates": .array(coordinates)],
                             "properties": .object(properties)])
        }
        return (CanonicalJSON.string(["type": "FeatureCollection", "features": .array(features)]) + "\n", missing)
    }

    package static let wigleColumns =
        "MAC,SSID,AuthMode,FirstSeen,Channel,Frequency,RSSI,CurrentLatitude,CurrentLongitude,AltitudeMeters,AccuracyMeters,RCOIs,MfgrId,Type"

    /// WiGLE CSV 1.6: the pre-header line, the column line, then one row per
    /// transmitter per GPS-tagged document (its strongest RSSI, first seen =
    /// startTime + its first sample). Wi-Fi rows `WIFI`, BLE rows `BLE`;
    /// fprint does not record Wi-Fi security, so AuthMode is `[ESS]` (open
    /// infrastructure is all WiGLE can be told), BLE `Misc [LE]`.
    package static func wigle(_ docs: [Document], appRelease: String, model: String, release: String, device: String)
        -> (text: String, withoutFix: Int)
    {
        func pre(_ s: String) -> String { s.replacingOccurrences(of: ",", with: " ") }
        var out = "WigleWifi-1.6,appRelease=\(pre(appRelease)),model=\(pre(model)),release=\(pre(release)),"
            + "device=\(pre(device)),display=none,board=\(pre(model)),brand=fprint,star=Sol,body=3,subBody=0\n"
        out += wigleColumns + "\n"
        var missing = 0
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for d in docs {
            guard let f = fix(d.body) else { missing += 1; continue }
            let startMs = ISOTime.milliseconds(text(d.body["startTime"])) ?? ISOTime.milliseconds(text(d.body["createdAt"])) ?? 0
            func seen(_ t: Int) -> String {
                formatter.string(from: Date(timeIntervalSince1970: Double(startMs + Int64(t)) / 1000))
            }
            let place = [String(format: "%.7f", f.lat), String(format: "%.7f", f.long),
                         f.alt.map { String(format: "%.1f", $0) } ?? "0", f.accuracy.map { String(format: "%.1f", $0) } ?? "0"]
            // Strongest report and first time per transmitter, in first-seen order.
            var order: [String] = []
            var best: [String: (item: JSONValue, rssi: Double, first: Int)] = [:]
            func take(_ key: String, _ item: JSONValue) {
                guard let rssi = item["rssi"]?.doubleValue else { return }
                let t = Int(item["time"]?.doubleValue ?? 0)
                if let b = best[key] {
                    best[key] = (rssi > b.rssi ? item : b.item, max(rssi, b.rssi), min(t, b.first))
                } else {
                    order.append(key)
                    best[key] = (item, rssi, t)
                }
            }
            for s in d.body["wifiScans"]?.arrayValue ?? [] { take("W" + text(s["mac"]), s) }
            for s in d.body["bleScans"]?.arrayValue ?? [] { take("B" + text(s["address"]), s) }
            for key in order {
                let b = best[key]!
                let wifi = key.hasPrefix("W")
                let mac = String(key.dropFirst()).lowercased()
                let name = wifi ? b.item["ssid"] : b.item["name"]
                let cells = [csvField(mac), csvCell(name), wifi ? "[ESS]" : "Misc [LE]", seen(b.first),
                             csvCell(b.item["channel"]), csvCell(b.item["frequency"]), String(Int(b.rssi.rounded()))]
                    + place + ["", "", wifi ? "WIFI" : "BLE"]
                out += cells.joined(separator: ",") + "\n"
            }
        }
        return (out, missing)
    }
}
