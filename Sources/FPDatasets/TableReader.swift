import Foundation

/// Which columns of a CSV table with a header mean what. Columns named by
/// no option and not transmitters are kept as tags (their header, their
/// text), so a selection can use them (`PHONEID=13`, `heading=…`).
package struct TableMapping: Sendable {
    package var x: String?
    package var y: String?
    package var floor: String?
    package var time: String?
    package var timeFormat = TableTime()
    /// Transmitter columns: every column whose header starts with one of these.
    package var transmitterPrefixes: [String]
    package var radio: FingerprintTable.Radio = .wifi
    /// The value meaning "not heard" (UJI: 100); nil: an empty cell means it
    /// (pandas' NaN), and is the only way to say it.
    package var notHeard: Double?
    /// Readings outside this range are refused: most likely a not-heard
    /// value the mapping does not name.
    package var rssiRange: ClosedRange<Double> = -200...30

    package init(x: String? = nil, y: String? = nil, floor: String? = nil, time: String? = nil,
                 transmitterPrefixes: [String], radio: FingerprintTable.Radio = .wifi, notHeard: Double? = nil) {
        self.x = x
        self.y = y
        self.floor = floor
        self.time = time
        self.transmitterPrefixes = transmitterPrefixes
        self.radio = radio
        self.notHeard = notHeard
    }
}

/// Reads a CSV table with a header through a `TableMapping`. Every cell is
/// checked; the first bad one is a `DatasetError` naming the file, line and
/// column, and no row is returned.
package enum TableReader {
    /// The columns of a header the mapping names, by index.
    package struct Columns: Sendable, Equatable {
        package var x: Int?, y: Int?, floor: Int?, time: Int?
        package var transmitters: [(index: Int, name: String)]
        package var tags: [(index: Int, name: String)]
        package var count: Int

        package static func == (a: Columns, b: Columns) -> Bool {
            a.x == b.x && a.y == b.y && a.floor == b.floor && a.time == b.time && a.count == b.count
                && a.transmitters.elementsEqual(b.transmitters, by: ==) && a.tags.elementsEqual(b.tags, by: ==)
        }
    }

    package static func columns(header: [String], mapping: TableMapping, file: String) throws(DatasetError) -> Columns {
        func find(_ name: String?, _ option: String) throws(DatasetError) -> Int? {
            guard let name else { return nil }
            guard let i = header.firstIndex(of: name) else {
                throw DatasetError(file: file, line: 1, "\(option) '\(name)' is not a column (columns: \(shown(header)))")
            }
            return i
        }
        let x = try find(mapping.x, "--x-column"), y = try find(mapping.y, "--y-column")
        let floor = try find(mapping.floor, "--floor-column"), time = try find(mapping.time, "--time-column")
        let named = Set([x, y, floor, time].compactMap { $0 })
        var transmitters: [(Int, String)] = [], tags: [(Int, String)] = []
        for (i, name) in header.enumerated() where !named.contains(i) {
            if mapping.transmitterPrefixes.contains(where: { !$0.isEmpty && name.hasPrefix($0) }) {
                transmitters.append((i, name))
            } else {
                // pandas writes its index under an empty header: keep it, named by its place.
                tags.append((i, name.isEmpty ? "column\(i + 1)" : name))
            }
        }
        guard !transmitters.isEmpty else {
            let prefixes = mapping.transmitterPrefixes.map { "'\($0)'" }.joined(separator: ", ")
            throw DatasetError(file: file, line: 1, "no column starts with \(prefixes) (columns: \(shown(header)))")
        }
        return Columns(x: x, y: y, floor: floor, time: time, transmitters: transmitters, tags: tags, count: header.count)
    }

    static func shown(_ header: [String]) -> String {
        let names = header.prefix(12).map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: ", ")
        return header.count > 12 ? names + ", … (\(header.count) in all)" : names
    }

    /// The whole table: header on line 1, then one row per record.
    package static func read(_ csv: CSVFile, mapping: TableMapping) throws(DatasetError) -> FingerprintTable {
        let header = try csv.header()
        let cols = try columns(header: header, mapping: mapping, file: csv.name)
        var rows: [TableRow] = []
        var first = true
        try csv.forEachRecord { (record) throws(DatasetError) in
            if first {
                first = false
                return true
            }
            rows.append(try row(record, index: rows.count + 1, columns: cols, mapping: mapping))
            return true
        }
        return FingerprintTable(file: csv.name, radio: mapping.radio, transmitters: cols.transmitters.map(\.name), rows: rows)
    }

    static func row(_ record: CSVRecord, index: Int, columns c: Columns, mapping: TableMapping) throws(DatasetError)
        -> TableRow
    {
        guard record.count == c.count else {
            throw record.error(nil, "\(record.count) fields, the header has \(c.count)")
        }
        var row = TableRow(line: record.line, row: index)
        func number(_ i: Int, _ what: String) throws(DatasetError) -> Double {
            guard !record.isEmpty(i) else { throw record.error(i, "no \(what) (empty cell)") }
            guard let v = record.number(i) else { throw record.error(i, "\(what) \(record.shown(i)) is not a number") }
            return v
        }
        if let i = c.x { row.x = try number(i, "x") }
        if let i = c.y { row.y = try number(i, "y") }
        if let i = c.floor {
            let v = try number(i, "floor")
            guard v.rounded() == v, abs(v) < 1000 else { throw record.error(i, "floor \(record.shown(i)) is not a whole number") }
            row.floor = Int(v)
        }
        if let i = c.time {
            guard !record.isEmpty(i) else { throw record.error(i, "no time (empty cell)") }
            let text = record.text(i)
            switch mapping.timeFormat.milliseconds(text) {
            case .success(let ms): row.timeMs = ms
            case .failure(let f): throw record.error(i, "time \(record.shown(i)): \(f.reason)")
            }
            row.timeText = text
        }
        row.readings.reserveCapacity(16)
        for (t, column) in c.transmitters.enumerated() {
            if let rssi = try reading(record, column.index, mapping: mapping) {
                row.readings.append(TableRow.Reading(transmitter: t, rssi: rssi))
            }
        }
        row.tags = c.tags.map { TableRow.Tag($0.name, record.text($0.index)) }
        return row
    }

    /// One transmitter cell: its RSSI, or nil when not heard.
    static func reading(_ record: CSVRecord, _ i: Int, mapping: TableMapping) throws(DatasetError) -> Double? {
        if record.isEmpty(i) {
            if mapping.notHeard == nil { return nil }
            throw record.error(i, "empty cell (not heard is written \(format(mapping.notHeard!)) here; "
                + "--not-heard empty says otherwise)")
        }
        guard let v = record.number(i) else { throw record.error(i, "RSSI \(record.shown(i)) is not a number") }
        if let notHeard = mapping.notHeard, v == notHeard { return nil }
        guard mapping.rssiRange.contains(v) else {
            let hint = mapping.notHeard == nil ? "; if it means not heard, say --not-heard \(format(v))" : ""
            let range = "\(format(mapping.rssiRange.lowerBound))…\(format(mapping.rssiRange.upperBound))"
            throw record.error(i, "RSSI \(record.shown(i)) is outside \(range) dBm\(hint)")
        }
        return v
    }

    static func format(_ v: Double) -> String { v.rounded() == v && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
}
