/// A fingerprint dataset's table as rows: where each was taken (truth, when
/// the table has it), when, which transmitters were heard and how strongly,
/// and the other columns as tags. What `fprint import` stores and what a
/// replay of a test track reads are the same rows, from the same readers
/// (`TableReader` for CSV with a column mapping, `UJILongTerm` for that layout).
package struct FingerprintTable: Sendable, Equatable {
    package enum Radio: String, Sendable, CaseIterable { case wifi, ble }

    /// The file as named in messages and provenance.
    package var file: String
    /// The radio of every transmitter column.
    package var radio: Radio
    /// Transmitter columns in file order, by their header (UJI: `WAP001`…).
    package var transmitters: [String]
    package var rows: [TableRow]

    package init(file: String, radio: Radio, transmitters: [String], rows: [TableRow]) {
        self.file = file
        self.radio = radio
        self.transmitters = transmitters
        self.rows = rows
    }
}

/// One row of a fingerprint table.
package struct TableRow: Sendable, Equatable {
    /// 1-based line of the file the row is on (the header is line 1 when there is one).
    package var line: Int
    /// 1-based data row (the header not counted).
    package var row: Int
    /// Position in the table's unit (metres for both public datasets); nil without a position column.
    package var x: Double?
    package var y: Double?
    package var floor: Int?
    /// ms since 1970 (UTC); nil without a time column.
    package var timeMs: Int64?
    /// The time cell as written.
    package var timeText: String?
    /// Heard transmitters only, in column order.
    package var readings: [Reading]
    /// The columns not mapped to anything else, by header, in file order.
    package var tags: [Tag]

    package init(line: Int, row: Int, x: Double? = nil, y: Double? = nil, floor: Int? = nil, timeMs: Int64? = nil,
                 timeText: String? = nil, readings: [Reading] = [], tags: [Tag] = []) {
        self.line = line
        self.row = row
        self.x = x
        self.y = y
        self.floor = floor
        self.timeMs = timeMs
        self.timeText = timeText
        self.readings = readings
        self.tags = tags
    }

    package struct Reading: Sendable, Equatable {
        /// Index into the table's `transmitters`.
        package var transmitter: Int
        /// dBm, as written (fractions kept).
        package var rssi: Double
        package init(transmitter: Int, rssi: Double) {
            self.transmitter = transmitter
            self.rssi = rssi
        }
    }

    package struct Tag: Sendable, Equatable {
        package var key: String
        package var value: String
        package init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }
}
