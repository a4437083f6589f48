import FPCore
import Foundation

/// Turns table rows into measurement documents: one static measurement
/// per fingerprint, on the map its floor gives, at its position (`x`/`y`
/// rounded to whole metres for the evaluator's integer keys, `position` exact
/// with `unit: "m"`), dated by its time, its readings as `wifiScans` or
/// `bleScans` at time 0, its tags. `imported` says where it came from
/// (format, dataset, file, row, line, the time cell as written) and lists
/// the table's transmitter columns; `providers` says the readings come from
/// the dataset, not simulated and not heard by this machine (no device keys).
package struct TableDocuments: Sendable {
    package var format: String
    package var dataset: String
    /// The map of a row: `{floor}`, `{dataset}` and `{TAG}` (a tag column's
    /// header) are replaced by the row's values.
    package var mapTemplate: String
    /// ISO-8601 time of the import.
    package var importedAt: String
    /// Tags every document gets (`--tag set=train`), after the row's own.
    package var extraTags: [TableRow.Tag] = []

    package init(format: String, dataset: String, mapTemplate: String, importedAt: String) {
        self.format = format
        self.dataset = dataset
        self.mapTemplate = mapTemplate
        self.importedAt = importedAt
    }

    /// A template whose placeholders the table cannot fill is refused before any row is read.
    package func checkTemplate(tagKeys: [String], hasFloor: Bool, file: String) throws(DatasetError) {
        for name in Self.placeholders(mapTemplate) {
            switch name {
            case "dataset": continue
            case "floor" where hasFloor: continue
            case _ where tagKeys.contains(name) || extraTags.contains(where: { $0.key == name }): continue
            default:
                throw DatasetError(file: file, "--map '\(mapTemplate)': {\(name)} is \(name == "floor" ? "not mapped (--floor-column)" : "not a column")")
            }
        }
    }

    static func placeholders(_ template: String) -> [String] {
        var out: [String] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return out
    }

    package func map(of row: TableRow) -> String {
        var out = mapTemplate
        for name in Self.placeholders(mapTemplate) {
            let value: String
            switch name {
            case "dataset": value = dataset
            case "floor": value = row.floor.map(String.init) ?? ""
            default: value = (row.tags + extraTags).first { $0.key == name }?.value ?? ""
            }
            out = out.replacingOccurrences(of: "{\(name)}", with: value)
        }
        return out
    }

    /// The document id: dataset, file stem and row, so importing again finds the same ids, behind 8 hex
    /// digits of their hash, so that `fprint list`'s id column (8 characters) tells documents apart.
    package func id(file stem: String, row: TableRow) -> String {
        let name = "\(dataset):\(stem):\(row.row)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        // FNV-1a's high bits hardly change with the last character: mixed (MurmurHash3's finaliser) so rows differ up front.
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        let hex = String(hash >> 32, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + ":" + name
    }

    /// The rows of one table as documents; `stem` names the file in ids
    /// (UJI: `01:trn01`). Rows without a position are refused: a stored
    /// measurement needs one.
    package func documents(_ table: FingerprintTable, stem: String) throws(DatasetError) -> [NewDocument] {
        let columns = TransmitterColumns.encode(table.transmitters)
        var out: [NewDocument] = []
        out.reserveCapacity(table.rows.count)
        for row in table.rows {
            guard let x = row.x, let y = row.y else {
                throw DatasetError(file: table.file, line: row.line, "no position: a stored measurement needs --x-column and --y-column")
            }
            out.append(NewDocument(id: id(file: stem, row: row), body: body(row, x: x, y: y, table: table, columns: columns)))
        }
        return out
    }

    /// Members are written in canonical key order (UTF-8 bytes), so no object is sorted: 63,500 documents.
    func body(_ row: TableRow, x: Double, y: Double, table: FingerprintTable, columns: JSONValue) -> JSONValue {
        let scans: [JSONValue] = row.readings.map { r in
            let name = JSONValue.string(table.transmitters[r.transmitter])
            switch table.radio {
            case .wifi: return ["mac": name, "rssi": Self.number(r.rssi), "ssid": "", "time": 0]
            case .ble: return ["address": name, "rssi": Self.number(r.rssi), "time": 0]
            }
        }
        var imported: JSONObject = [
            "at": .string(importedAt), "dataset": .string(dataset), "file": .string(table.file), "format": .string(format),
            "line": .int(Int64(row.line)), "radio": .string(table.radio.rawValue), "row": .int(Int64(row.row)),
        ]
        if let t = row.timeText { imported["time"] = .string(t) }
        imported["transmitters"] = columns
        var tags = JSONObject()
        for tag in row.tags + extraTags { tags[tag.key] = .string(tag.value) }
        let iso: JSONValue? = row.timeMs.map { .string(ISOTime.string(millisecondsSince1970: $0)) }
        var members: [JSONObject.Member] = [
            ("bleScans", .array(table.radio == .ble ? scans : [])), ("cellScans", []),
            ("collectBluetoothData", .bool(table.radio == .ble)), ("collectBtsData", false),
            ("collectGeolocationData", false), ("collectWifiData", .bool(table.radio == .wifi)),
            (MeasurementDocument.ownerKey, .string(MeasurementDocument.unsignedOwner)),
        ]
        if let iso { members.append(("createdAt", iso)) }
        members.append(("durationMs", 0))
        if let iso { members.append(("endTime", iso)) }
        if let floor = row.floor { members.append(("floor", .int(Int64(floor)))) }
        members += [
            ("generator", .string("fprint import (\(format))")), ("geolocation", []), ("imported", .object(imported)),
            ("level", .string(map(of: row))), ("mode", "static"),
            ("position", ["rule": "dataset", "unit": "m", "x": Self.number(x), "y": Self.number(y)]),
            ("providers", [table.radio.rawValue: ["samples": .int(Int64(scans.count)), "simulated": false,
                                                  "source": .string("dataset:\(dataset)"), "status": "ok"]]),
            ("schemaVersion", .int(Int64(MeasurementDocument.schemaVersion))),
        ]
        if let iso { members.append(("startTime", iso)) }
        members += [
            ("tags", .object(tags)), ("type", "scan"), ("wifiScans", .array(table.radio == .wifi ? scans : [])),
            ("x", .int(Self.whole(x))), ("y", .int(Self.whole(y))),
        ]
        return .object(JSONObject(members: members))
    }

    /// Whole numbers as integers (so canonical text reads back as it was), others as doubles.
    static func number(_ v: Double) -> JSONValue {
        v.rounded() == v && abs(v) < 9e15 ? .int(Int64(v)) : .double(v)
    }

    /// The evaluator's whole map units: metres rounded half away from zero.
    static func whole(_ v: Double) -> Int64 { Int64(max(-9e15, min(9e15, v.rounded()))) }
}
