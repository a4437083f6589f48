import FPCore
import Foundation
import Testing

@testable import FPAnalysis

/// SSIDs and BLE names are chosen by whoever runs the transmitter: a CSV
/// export must not hand a spreadsheet a formula (OWASP, CSV Injection).
@Suite("CSV exports escape formula text")
struct ExportCSVInjectionTests {
    /// Names a hostile transmitter could advertise, each starting with a formula character.
    static let hostile = [
        "=HYPERLINK(\"http://evil.example\",\"click\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)",
        "\tx=1", "\rx=1",
    ]

    static var document: Export.Document {
        var wifi: [JSONValue] = []
        for (i, ssid) in hostile.enumerated() {
            wifi.append(["mac": .string("00:11:22:33:44:0\(i)"), "ssid": .string(ssid), "rssi": -71, "time": 5,
                         "frequency": 2437, "channel": 6])
        }
        wifi.append(["mac": "00:11:22:33:44:99", "ssid": "plain, with comma", "rssi": -60, "time": 6])
        return Export.Document(id: "doc-1", body: [
            "createdAt": "2026-01-02T03:04:05.000Z", "startTime": "2026-01-02T03:04:05.000Z", "level": "J1NP",
            "x": 10, "y": -20, "mode": "static",
            "bleScans": [["address": "AA:BB:CC:DD:EE:FF", "name": .string(hostile[0]), "rssi": -80, "time": 3]],
            "wifiScans": .array(wifi),
            "geolocation": [["lat": 50.2, "long": 15.8, "time": 0]],
        ])
    }

    @Test func textCellsStartingWithAFormulaCharacterGetAQuoteInsideQuotes() {
        let fields = Self.fields(Export.csv([Self.document]))
        for name in Self.hostile {
            // The quote sits inside the quoted field, embedded quotes doubled.
            let escaped = "\"'" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            #expect(Export.csv([Self.document]).contains(escaped), "\(name.debugDescription) not escaped")
            #expect(fields.joined().contains { $0.value == "'" + name })
        }
        #expect(fields.joined().contains { $0.value == "plain, with comma" && $0.quoted })
    }

    @Test func numbersStayNumbers() {
        let rows = Self.fields(Export.csv([Self.document]))
        let header = Export.csvHeader.split(separator: ",").map(String.init)
        for row in rows.dropFirst() {
            let cell = { (name: String) in row[header.firstIndex(of: name)!].value }
            #expect(cell("rssi") == "-71" || cell("rssi") == "-80" || cell("rssi") == "-60")
            #expect(cell("y") == "-20")
        }
    }

    @Test func noExportedTextCellStartsAFormula() throws {
        let doc = Self.document
        let wigle = Export.wigle([doc], appRelease: "1", model: "m", release: "r", device: "d").text
        let comford = try Export.comford([doc], metersPerUnit: { _ in 0.02 }, floor: { _ in 1 })
        for text in [Export.csv([doc]), wigle, comford.aps, comford.samples] {
            for field in Self.fields(text).joined() where !field.quoted || !field.value.hasPrefix("'") {
                // Whatever is left unescaped starting with a formula character must be a number.
                if let first = field.value.unicodeScalars.first, Export.formulaStarts.contains(first) {
                    #expect(Double(field.value) != nil, "unescaped formula cell \(field.value.debugDescription)")
                }
            }
        }
        #expect(wigle.contains("\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\""))
        #expect(comford.aps.contains("\"'+cmd|' /C calc'!A0\""))
    }

    /// RFC 4180 rows of fields, each with whether it was quoted.
    static func fields(_ text: String) -> [[(value: String, quoted: Bool)]] {
        var rows: [[(value: String, quoted: Bool)]] = []
        var row: [(value: String, quoted: Bool)] = []
        var field = "", quoted = false, inQuotes = false
        var chars = Array(text.unicodeScalars)[...]
        while let c = chars.popFirst() {
            if inQuotes {
                if c == "\"" {
                    if chars.first == "\"" { field.unicodeScalars.append("\""); chars.removeFirst() } else { inQuotes = false }
                } else {
                    field.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                inQuotes = true
                quoted = true
            } else if c == "," || c == "\n" {
                row.append((field, quoted))
                field = ""
                quoted = false
                if c == "\n" { rows.append(row); row = [] }
            } else {
                field.unicodeScalars.append(c)
            }
        }
        return rows
    }
}
