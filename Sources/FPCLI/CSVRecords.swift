import Foundation

/// The records of a CSV file (RFC 4180: quoted fields may hold the
/// delimiter, doubled quotes and line breaks), each with the line it starts
/// on, for messages that point into the file. The delimiter is the header
/// line's most frequent of comma, semicolon and tab: spreadsheets in locales
/// with a decimal comma export with semicolons.
struct CSVRecords {
    struct Record {
        var line: Int
        var fields: [String]
        /// Every field empty: a spacer row, not a beacon.
        var isBlank: Bool { fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
    }

    var delimiter: Character
    var records: [Record]

    /// Why a file is not CSV, with the line it happened on.
    struct Failure: Error {
        var line: Int
        var message: String
    }

    init(_ text: String) throws(Failure) {
        var text = Substring(text)
        if text.first == "\u{FEFF}" { text = text.dropFirst() }  // Excel's UTF-8 byte order mark
        let header = text.prefix { $0 != "\n" && $0 != "\r" && $0 != "\r\n" }
        delimiter = [",", ";", "\t"].max { a, b in header.filter { $0 == a }.count < header.filter { $0 == b }.count } ?? ","
        if !header.contains(delimiter) { delimiter = "," }
        records = []
        var fields: [String] = [], field = "", quoted = false, afterQuote = false
        var line = 1, start = 1
        func endRecord() {
            fields.append(field)
            records.append(Record(line: start, fields: fields))
            fields = []
            field = ""
            afterQuote = false
        }
        for c in text {
            let isBreak = c == "\n" || c == "\r" || c == "\r\n"
            if quoted {
                if c == "\"" { quoted = false; afterQuote = true } else { field.append(c) }
                if isBreak { line += 1 }
                continue
            }
            if c == "\"" {
                if afterQuote { field.append("\""); quoted = true; afterQuote = false; continue }  // "" inside quotes
                guard field.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw Failure(line: line, message: "a quote inside an unquoted field (quote the whole field)")
                }
                field = ""
                quoted = true
            } else if c == delimiter {
                fields.append(field)
                field = ""
                afterQuote = false
            } else if isBreak {
                endRecord()
                line += 1
                start = line
            } else if afterQuote {
                if c != " " { throw Failure(line: line, message: "text after a closing quote") }
            } else {
                field.append(c)
            }
        }
        if quoted { throw Failure(line: start, message: "a quoted field is not closed") }
        if !fields.isEmpty || !field.isEmpty || afterQuote { endRecord() }
    }
}
