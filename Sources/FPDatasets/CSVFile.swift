import Foundation

// Byte values as constants: a debug build calls `UInt8(ascii:)` at every use, and the UJI files have 39 million cells.
private let quote: UInt8 = 0x22, newline: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20
private let minus: UInt8 = 0x2D, plus: UInt8 = 0x2B, zero: UInt8 = 0x30, nine: UInt8 = 0x39

/// A CSV file's bytes, read record by record without copying fields
/// (RFC 4180: a delimiter — comma unless told —, optional double quotes with
/// `""` inside, LF, CRLF or CR; a UTF-8 byte-order mark is skipped). The one
/// CSV reader of fprint: dataset tables and deployed-beacon sheets alike.
///
/// Where readers differ, this one: passes blank lines over but counts them,
/// so every line number is the file's own (a row of empty fields, `,,,`, is
/// a record); takes spaces before an opening quote and after a closing one
/// as padding (`a, "b" ,c` is `a`, `b`, `c`, as spreadsheets write it); and
/// refuses a quote inside an unquoted field (`ab"c`), which is a field that
/// lost its opening quote far more often than a quote meant as text.
package struct CSVFile: Sendable {
    /// The name errors use (a path as the user gave it, or relative to a dataset folder).
    package let name: String
    package let bytes: [UInt8]
    /// Comma, semicolon or tab.
    package let delimiter: UInt8

    package init(name: String, bytes: [UInt8], delimiter: UInt8 = comma) {
        self.name = name
        self.bytes = bytes
        self.delimiter = delimiter
    }

    package static let comma: UInt8 = 0x2C, semicolon: UInt8 = 0x3B, tab: UInt8 = 0x09

    /// The delimiter a spreadsheet export used: the header line's most
    /// frequent of comma, semicolon and tab (comma if none), as locales with
    /// a decimal comma export with semicolons.
    package static func delimiter(ofHeader bytes: [UInt8]) -> UInt8 {
        let header = bytes.prefix { $0 != newline && $0 != cr }
        let counts = [comma, semicolon, tab].map { d in (d, header.reduce(0) { $0 + ($1 == d ? 1 : 0) }) }
        let best = counts.max { $0.1 < $1.1 }!
        return best.1 > 0 ? best.0 : comma
    }

    /// Reads a whole file; a missing or unreadable one is a `DatasetError` naming it.
    package static func read(path: String, name: String? = nil) throws(DatasetError) -> CSVFile {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue { throw DatasetError(file: name ?? path, "is a folder, not a CSV file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            let why = exists ? "cannot read the file (permission?)" : "no such file"
            throw DatasetError(file: name ?? path, why)
        }
        return CSVFile(name: name ?? path, bytes: [UInt8](data))
    }

    /// Calls `body` with each record in file order; `body` answers false to stop.
    package func forEachRecord(_ body: (CSVRecord) throws(DatasetError) -> Bool) throws(DatasetError) {
        let count = bytes.count
        var failure: DatasetError?
        bytes.withUnsafeBufferPointer { buf in
            var fields: [CSVRecord.Field] = []
            fields.reserveCapacity(64)
            var i = buf.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            var line = 1
            let delimiter = self.delimiter
            while i < count {
                let recordLine = line
                fields.removeAll(keepingCapacity: true)
                while true {
                    // Spaces before an opening quote are padding.
                    var k = i
                    while k < count && buf[k] == space { k += 1 }
                    if k < count && buf[k] == quote { i = k }
                    if i < count && buf[i] == quote {
                        // Quoted: up to the quote not doubled; newlines inside belong to the field.
                        let start = i + 1
                        var j = start
                        var escaped = false
                        while true {
                            guard j < count else {
                                failure = DatasetError(file: name, line: recordLine, column: fields.count + 1,
                                                       "a quoted field is not closed before the end of the file")
                                return
                            }
                            if buf[j] == quote {
                                if j + 1 < count && buf[j + 1] == quote {
                                    escaped = true
                                    j += 2
                                    continue
                                }
                                break
                            }
                            if buf[j] == newline { line += 1 }
                            j += 1
                        }
                        fields.append(CSVRecord.Field(range: start..<j, quoted: true, escaped: escaped))
                        i = j + 1
                        while i < count && buf[i] == space { i += 1 }
                        if i < count, buf[i] != delimiter, buf[i] != newline, buf[i] != cr {
                            failure = DatasetError(file: name, line: line, column: fields.count,
                                                   "text after the closing quote of a field")
                            return
                        }
                    } else {
                        let start = i
                        while i < count, buf[i] != delimiter, buf[i] != newline, buf[i] != cr {
                            if buf[i] == quote {
                                failure = DatasetError(file: name, line: line, column: fields.count + 1,
                                                       "a quote inside an unquoted field (quote the whole field)")
                                return
                            }
                            i += 1
                        }
                        fields.append(CSVRecord.Field(range: start..<i, quoted: false, escaped: false))
                    }
                    if i < count && buf[i] == delimiter {
                        i += 1
                        continue
                    }
                    break
                }
                // The record's end: CRLF, LF or a lone CR, or the end of the file.
                if i < count && buf[i] == cr { i += 1 }
                if i < count && buf[i] == newline { i += 1 }
                line += 1
                if fields.count == 1 && fields[0].range.isEmpty && !fields[0].quoted { continue }  // a blank line
                let record = CSVRecord(bytes: buf, fields: fields, line: recordLine, file: name)
                do throws(DatasetError) {
                    guard try body(record) else { return }
                } catch {
                    failure = error
                    return
                }
            }
        }
        if let failure { throw failure }
    }

    /// The first record's fields as text: a header.
    package func header() throws(DatasetError) -> [String] {
        var out: [String]?
        try forEachRecord { record in
            out = (0..<record.count).map { record.text($0) }
            return false
        }
        guard let out else { throw DatasetError(file: name, "the file is empty") }
        return out
    }
}

/// One record of a `CSVFile`: its fields as byte ranges of the file. Valid
/// only inside the `forEachRecord` call that hands it over.
package struct CSVRecord {
    struct Field {
        var range: Range<Int>
        var quoted: Bool
        /// A quoted field with `""` inside, unescaped when read as text.
        var escaped: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let fields: [Field]
    /// The file's 1-based line the record starts on.
    package let line: Int
    let file: String

    package var count: Int { fields.count }

    /// True for a field with nothing in it (`,,` or `""`).
    package func isEmpty(_ i: Int) -> Bool { fields[i].range.isEmpty }

    package func text(_ i: Int) -> String {
        let f = fields[i]
        let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[f.range]), as: UTF8.self)
        return f.escaped ? s.replacingOccurrences(of: "\"\"", with: "\"") : s
    }

    /// The field as a number (spaces around it allowed), nil if it is none.
    /// Whole numbers of up to 15 digits are read directly; anything else
    /// (fractions, exponents) by the standard library, correctly rounded
    /// as a C `strtod` (and Octave's `csvread`) reads it.
    package func number(_ i: Int) -> Double? {
        var r = fields[i].range
        while !r.isEmpty, bytes[r.lowerBound] == space { r = (r.lowerBound + 1)..<r.upperBound }
        while !r.isEmpty, bytes[r.upperBound - 1] == space { r = r.lowerBound..<(r.upperBound - 1) }
        guard !r.isEmpty else { return nil }
        var k = r.lowerBound
        let negative = bytes[k] == minus
        if negative || bytes[k] == plus { k += 1 }
        var whole = 0
        let digits = k
        while k < r.upperBound, bytes[k] >= zero, bytes[k] <= nine, k - digits < 15 {
            whole = whole * 10 + Int(bytes[k] - zero)
            k += 1
        }
        if k == r.upperBound && k > digits { return Double(negative ? -whole : whole) }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self)),
            value.isFinite
        else { return nil }
        return value
    }

    /// A `DatasetError` at this record's line and field `i` (0-based here, 1-based in the message).
    package func error(_ i: Int?, _ message: String) -> DatasetError {
        DatasetError(file: file, line: line, column: i.map { $0 + 1 }, message)
    }

    /// The field's text for a message: quoted, cut at 40 characters.
    package func shown(_ i: Int) -> String {
        let t = text(i)
        return "'" + (t.count > 40 ? String(t.prefix(40)) + "…" : t) + "'"
    }
}
