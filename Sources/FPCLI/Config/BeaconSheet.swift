import FPConfig
import FPCore
import FPDatasets
import Foundation

/// A deployed-beacon spreadsheet (CSV with a header row) read into a map's
/// registry entries. Columns are found by name, in any case and order, with
/// the names sheets commonly use (`columnAliases`); unknown columns are left
/// out and named. Every row is checked, and each problem becomes one
/// `FILE:LINE: what` line: a sheet with any is not imported at all.
struct BeaconSheet {
    enum Column: String, CaseIterable {
        case address, uuid, major, minor, namespace, instance, x, y, xMetres = "x_m", yMetres = "y_m", unit, power, name
    }

    /// A header squeezed to its lower-case letters and digits ("X (m)" → "xm",
    /// "Tx power [dBm]" → "txpowerdbm") → the column it names.
    static let columnAliases: [String: Column] = {
        var out: [String: Column] = [:]
        let names: [Column: [String]] = [
            .address: ["address", "mac", "macaddress", "bdaddr", "bluetoothaddress", "bleaddress"],
            .uuid: ["uuid", "ibeaconuuid", "proximityuuid"],
            .major: ["major", "ibeaconmajor"], .minor: ["minor", "ibeaconminor"],
            .namespace: ["namespace", "eddystonenamespace", "namespaceid", "nid"],
            .instance: ["instance", "eddystoneinstance", "instanceid", "bid"],
            .x: ["x", "xunits", "xpx", "xmapunits"], .y: ["y", "yunits", "ypx", "ymapunits"],
            .xMetres: ["xm", "xmetres", "xmeters"], .yMetres: ["ym", "ymetres", "ymeters"],
            .unit: ["unit", "units"],
            .power: ["txpower", "measuredpower", "power", "rssi1m", "rssiat1m", "txpowerdbm", "measuredpowerdbm",
                     "powerat1m", "txpower1m"],
            .name: ["name", "label", "beacon", "beaconname"],
        ]
        for (column, list) in names { for name in list { out[name] = column } }
        return out
    }()

    /// One beacon of the sheet, as the registry file holds it: its address,
    /// its advertised identity, or both.
    struct Row {
        var line: Int
        var mac: String?
        var name: String?
        var x: Double, y: Double
        var measuredPower: Double?
        var uuid: String?, major: Int?, minor: Int?
        var namespace: String?, instance: String?
        var inMetres: Bool

        /// The registry entry (`BeaconRegistry`'s shape; uuid/major/minor as the shipped files have them).
        func json(map: String) -> JSONObject {
            var o: JSONObject = ["floor": .string(map), "x": .double(x), "y": .double(y)]
            if let mac { o["mac"] = .string(mac) }
            if let name { o["name"] = .string(name) }
            if let measuredPower { o["measuredPower"] = .double(measuredPower) }
            if let uuid, let major, let minor {
                o["uuid"] = .string(uuid)
                o["major"] = .int(Int64(major))
                o["minor"] = .int(Int64(minor))
            }
            if let namespace, let instance {
                o["namespace"] = .string(namespace)
                o["instance"] = .string(instance)
            }
            return o
        }
    }

    var rows: [Row] = []
    /// Data rows read, blank ones not counted.
    var rowCount = 0
    var blankRows = 0
    var ignoredColumns: [String] = []

    /// `file` names the sheet in problems; positions are checked against
    /// `map`'s extent and metres turned into its units. Throws the problems,
    /// one line each, in file order.
    /// `origin`: where the sheet's metres start on the plan (map units; nil: the plan's origin).
    init(text: String, file: String, map: MapInfo, metres: Bool, origin: MapPoint? = nil) throws(Problems) {
        let bytes = Array(text.utf8)
        let csv = CSVFile(name: file, bytes: bytes, delimiter: CSVFile.delimiter(ofHeader: bytes))
        var records: [Record] = []
        do {
            try csv.forEachRecord { record in
                records.append(Record(line: record.line, fields: (0..<record.count).map { record.text($0) }))
                return true
            }
        } catch {
            throw Problems(["\(file):\(error.line ?? 1): \(error.message)"])
        }
        guard let header = records.first, !header.isBlank else {
            throw Problems(["\(file):1: no header row (name the columns: address, x, y, tx power, name, …)"])
        }
        var index: [Column: Int] = [:]
        var problems: [String] = []
        for (i, raw) in header.fields.enumerated() {
            let title = raw.trimmingCharacters(in: .whitespaces)
            let key = title.lowercased().filter { $0.isLetter || $0.isNumber }
            guard let column = Self.columnAliases[key] else {
                if !title.isEmpty { ignoredColumns.append(title) }
                continue
            }
            if let first = index[column] {
                problems.append("\(file):\(header.line): columns \(first + 1) and \(i + 1) both give \(column.rawValue)")
            }
            index[column] = i
        }
        if index[.address] == nil && index[.uuid] == nil && index[.namespace] == nil {
            problems.append("\(file):\(header.line): no column names the beacons: give an address (or mac) column, or iBeacon uuid/major/minor, or Eddystone namespace/instance")
        }
        for (plain, inMetres) in [(Column.x, Column.xMetres), (.y, .yMetres)] where index[plain] == nil && index[inMetres] == nil {
            problems.append("\(file):\(header.line): no \(plain.rawValue) column (\(plain.rawValue) in map units, or \(inMetres.rawValue) in metres)")
        }
        if index[.x] != nil && index[.xMetres] != nil || index[.y] != nil && index[.yMetres] != nil {
            problems.append("\(file):\(header.line): give x and y either in map units (x, y) or in metres (x_m, y_m), not both")
        }
        guard problems.isEmpty else { throw Problems(problems) }

        var firstLine: [String: Int] = [:]  // an id of any kind → the line that gave it first
        for record in records.dropFirst() {
            if record.isBlank { blankRows += 1; continue }
            rowCount += 1
            let at = "\(file):\(record.line)"
            if record.fields.count > header.fields.count {
                problems.append("\(at): \(record.fields.count) fields, the header names \(header.fields.count)")
                continue
            }
            let cells = RowCells(record: record, index: index, decimalComma: csv.delimiter != CSVFile.comma)
            do throws(RowProblem) {
                let row = try Self.row(cells, line: record.line, map: map, metres: metres, origin: origin)
                for id in row.identities {
                    if let first = firstLine[id] { throw RowProblem("\(id) is already on line \(first)") }
                }
                for id in row.identities { firstLine[id] = record.line }
                rows.append(row)
            } catch {
                problems.append("\(at): \(error.message)")
            }
        }
        if rowCount == 0 && problems.isEmpty { problems.append("\(file): no beacons: the sheet has a header and no rows") }
        guard problems.isEmpty else { throw Problems(problems) }
    }

    /// One row of the sheet as text, with the line it starts on.
    struct Record {
        var line: Int
        var fields: [String]
        /// Every field empty: a spacer row, not a beacon.
        var isBlank: Bool { fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
    }

    struct Problems: Error { var lines: [String]; init(_ lines: [String]) { self.lines = lines } }
    struct RowProblem: Error { var message: String; init(_ message: String) { self.message = message } }

    /// A row's cells by column, trimmed; "" for a column the sheet lacks or a row cut short.
    struct RowCells {
        var record: Record
        var index: [Column: Int]
        /// The sheet is not comma-separated, so "1,5" may be a number.
        var decimalComma: Bool

        subscript(_ column: Column) -> String {
            guard let i = index[column], i < record.fields.count else { return "" }
            return record.fields[i].trimmingCharacters(in: .whitespaces)
        }

        func has(_ column: Column) -> Bool { index[column] != nil }

        /// A number; a decimal comma is read where the delimiter is not a comma.
        func number(_ column: Column, _ what: String) throws(RowProblem) -> Double? {
            var text = self[column]
            if text.isEmpty { return nil }
            if decimalComma, !text.contains("."), text.filter({ $0 == "," }).count == 1 {
                text = text.replacingOccurrences(of: ",", with: ".")
            }
            guard let v = Double(text), v.isFinite else { throw RowProblem("\(what) \"\(self[column])\" is not a number") }
            return v
        }
    }

    static func row(_ cells: RowCells, line: Int, map: MapInfo, metres: Bool, origin: MapPoint? = nil) throws(RowProblem) -> Row {
        let address = cells[.address]
        var mac: String?
        if !address.isEmpty {
            guard let m = Self.mac(address) else {
                throw RowProblem("address \"\(address)\" is not a MAC address (six hex bytes, e.g. DB:D8:0E:71:E0:FD)")
            }
            mac = m
        } else if [Column.uuid, .major, .minor, .namespace, .instance].allSatisfy({ cells[$0].isEmpty }) {
            throw RowProblem("no address and no iBeacon uuid/major/minor or Eddystone namespace/instance: the beacon cannot be matched to its reports")
        }
        // Where a position is in metres: an x_m/y_m header, else the row's unit, else --metres.
        var inMetres = metres
        let unit = cells[.unit].lowercased()
        if cells.has(.xMetres) {
            inMetres = true
        } else if ["m", "metre", "metres", "meter", "meters"].contains(unit) {
            inMetres = true
        } else if ["unit", "units", "map units", "map unit", "px", "pixel", "pixels"].contains(unit) {
            inMetres = false
        } else if !unit.isEmpty {
            throw RowProblem("unit \"\(cells[.unit])\" is neither m (metres) nor units (map units)")
        }
        guard let x = try cells.number(inMetres && cells.has(.xMetres) ? .xMetres : .x, "x"),
              let y = try cells.number(inMetres && cells.has(.yMetres) ? .yMetres : .y, "y") else {
            throw RowProblem("no position: x and y are both needed")
        }
        let perUnit = map.scale.metersPerUnit
        let o = origin ?? MapPoint(x: 0, y: 0)
        let point = inMetres ? MapPoint(x: Self.round(o.x + x / perUnit), y: Self.round(o.y + y / perUnit)) : MapPoint(x: x, y: y)
        if let outside = map.outside(point) {
            throw RowProblem((inMetres ? String(format: "x %g m, y %g m: ", x, y) : "") + outside)
        }
        var row = Row(line: line, mac: mac, name: cells[.name].isEmpty ? nil : cells[.name], x: point.x, y: point.y,
                      inMetres: inMetres)
        if var power = cells[.power].lowercased().nilIfEmpty {
            if power.hasSuffix("dbm") { power = String(power.dropLast(3)).trimmingCharacters(in: .whitespaces) }
            guard let dBm = Double(power), (-120.0...0).contains(dBm) else {
                throw RowProblem("tx power \"\(cells[.power])\" is not the RSSI at 1 m in dBm (−120 to 0, e.g. -59)")
            }
            row.measuredPower = dBm
        }
        try Self.iBeacon(cells, into: &row)
        try Self.eddystone(cells, into: &row)
        return row
    }

    private static func iBeacon(_ cells: RowCells, into row: inout Row) throws(RowProblem) {
        let given = [Column.uuid, .major, .minor].filter { !cells[$0].isEmpty }
        guard !given.isEmpty else { return }
        guard given.count == 3 else { throw RowProblem("an iBeacon id needs uuid, major and minor; only \(given.map(\.rawValue).joined(separator: " and ")) given") }
        guard let uuid = BeaconIdentity.canonicalUUID(cells[.uuid]) else {
            throw RowProblem("uuid \"\(cells[.uuid])\" is not a UUID (32 hex digits, e.g. B9407F30-F5F8-466E-AFF9-25556B57FE6D)")
        }
        row.uuid = uuid
        for column in [Column.major, .minor] {
            guard let v = Int(cells[column]), (0...65535).contains(v) else {
                throw RowProblem("\(column.rawValue) \"\(cells[column])\" is not a whole number from 0 to 65535")
            }
            if column == .major { row.major = v } else { row.minor = v }
        }
    }

    private static func eddystone(_ cells: RowCells, into row: inout Row) throws(RowProblem) {
        let namespace = cells[.namespace], instance = cells[.instance]
        guard !namespace.isEmpty || !instance.isEmpty else { return }
        guard let ns = BeaconIdentity.hex(namespace, bytes: 10) else {
            throw RowProblem("Eddystone namespace \"\(namespace)\" is not 10 bytes of hex (20 digits)")
        }
        guard let id = BeaconIdentity.hex(instance, bytes: 6) else {
            throw RowProblem("Eddystone instance \"\(instance)\" is not 6 bytes of hex (12 digits)")
        }
        row.namespace = ns
        row.instance = id
    }

    /// "db-d8-0e-71-e0-fd", "dbd80e71e0fd" → "DB:D8:0E:71:E0:FD".
    static func mac(_ text: String) -> String? { BeaconIdentity.mac(text) }

    /// Map units from metres, to a thousandth: 12.5 m at 0.02 m a unit is 625, not 624.9999999.
    static func round(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
}

extension BeaconSheet.Row {
    /// What must be unique across a sheet: the address, an iBeacon id, an Eddystone id.
    var identities: [String] {
        var out = mac.map { ["address \($0)"] } ?? []
        if let uuid, let major, let minor { out.append("iBeacon \(uuid) \(major)/\(minor)") }
        if let namespace, let instance { out.append("Eddystone \(namespace)/\(instance)") }
        return out
    }

    /// What the beacon is called in tables and warnings: its address, else its advertised identity.
    var label: String {
        if let mac { return mac }
        if let uuid, let major, let minor { return BeaconIdentity.iBeacon(uuid: uuid, major: major, minor: minor).text }
        if let namespace, let instance { return BeaconIdentity.eddystoneUID(namespace: namespace, instance: instance).text }
        return "?"
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
