import Foundation
import Testing
@testable import FPCore

@Suite struct LegacyImportTests {
    let prague = TimeZone(identifier: "Europe/Prague")!
    let at = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func iosAllDocsDumpNormalisesWithoutLoss() throws {
        let parsed = try LegacyImport.parse(try fixture("legacy-ios-all-docs.json"), source: "ios.json",
                                            timeZone: prague, importedAt: at)
        #expect(parsed.format == .couchAllDocs)
        #expect(parsed.documents.count == 2)
        #expect(parsed.skipped == 2)  // the design document and the deleted row
        let first = try #require(parsed.documents.first)
        #expect(first.id == "0B6F1D2E-6C1A-4C5E-9C63-2B1F6B0E8A11")
        let body = first.body
        // Numbers as numbers.
        #expect(body["x"] == .int(363))
        #expect(body["batteryLevel"] == .double(0.85))
        #expect(body["magZ"] == .double(-40.125))
        // Local Prague time (CEST, +02:00) to UTC, the original kept.
        #expect(body["startTime"] == "2017-05-12T12:33:21.000Z")
        #expect(body["legacy"]?["startTime"] == "2017-05-12 14:33:21")
        #expect(body["legacy"]?["_rev"] == "3-9f8e7d6c5b4a39281706f5e4d3c2b1a0")
        // uuid → address, everything else kept.
        let ble = try #require(body["bleScans"]?.arrayValue)
        #expect(ble.count == 3)
        #expect(ble[0]["address"] == "4B1C9F5E-2D7A-4E61-8F3B-0C5D6E7F8A9B")
        #expect(ble[0]["uuid"] == nil)
        #expect(ble[0]["addressType"] == "ios-peripheral-uuid")
        #expect(ble[0]["rssi"] == .int(-67))
        #expect(ble[1]["time"] == .int(1130))
        #expect(body["geolocation"]?.arrayValue?.first?["lat"] == .double(50.204123))
        #expect(body["appVersion"] == "1.2 (17)")
        #expect(body["couchbase_sync_gateway_id"] == "surveyor1")
        #expect(body["_id"] == nil && body["_rev"] == nil)
        #expect(body["imported"]?["format"] == "couchdb-all-docs")
        #expect(body["mode"] == "static")
        // The second uses the Czech date format.
        #expect(parsed.documents[1].body["endTime"] == "2017-05-12T12:40:22.000Z")
    }

    @Test func importedDocumentsDecodeAsMeasurements() throws {
        let parsed = try LegacyImport.parse(try fixture("legacy-ios-all-docs.json"), source: "ios.json", timeZone: prague)
        let doc = try CanonicalJSON.decode(MeasurementDocument.self, from: parsed.documents[0].body)
        #expect(doc.x == 363 && doc.y == 701 && doc.level == "J1NP")
        #expect(doc.bleScans.map(\.rssi) == [-67, -71, -80])
        #expect(doc.gyroY == -0.0031)
        #expect(doc.schemaVersion == 0)
    }

    @Test func androidJSONLines() throws {
        let parsed = try LegacyImport.parse(try fixture("legacy-android.jsonl"), source: "a.jsonl", timeZone: prague)
        #expect(parsed.format == .jsonl)
        #expect(parsed.documents.map(\.id) == ["and-0001", "and-0002"])
        let a = parsed.documents[0].body
        #expect(a["createdAt"] == "2017-05-12T12:33:21.000Z")  // epoch ms
        #expect(a["legacy"]?["createdAt"] == .int(1_494_592_401_000))
        #expect(a["bleScans"]?.arrayValue?.first?["address"] == "C5:D5:21:51:D7:90")
        let wifi = try #require(a["wifiScans"]?.arrayValue?.first)
        #expect(wifi["mac"] == "00:11:22:33:44:66")
        #expect(wifi["frequency"] == .int(2437) && wifi["channel"] == .int(6))
        #expect(a["cellScans"]?.arrayValue?.first?["psc"] == .int(211))
        #expect(a["cellScans"]?.arrayValue?.first?["type"] == "LTE")
        #expect(parsed.documents[1].body["createdAt"] == "2017-05-12T12:34:10.000Z")  // ISO with an offset
    }

    @Test func couchView() throws {
        let parsed = try LegacyImport.parse(try fixture("couch-view.json"), source: "v.json")
        #expect(parsed.format == .couchView)
        #expect(parsed.documents.first?.id == "view-0001")
        #expect(parsed.documents.first?.body["x"] == .int(1534))
    }

    /// A view's rows array copied without its `{"rows": …}`: still rows, ids kept.
    @Test func rowsWithoutTheirHeader() throws {
        let text = #"[{"id":"r1","key":"r1","value":{"x":1,"y":2}},{"id":"r2","key":"r2","value":{"x":"3","y":4}}]"#
        let parsed = try LegacyImport.parse(Data(text.utf8), source: "rows.json")
        #expect(parsed.format == .couchView)
        #expect(parsed.documents.map(\.id) == ["r1", "r2"])
        #expect(parsed.documents[1].body["x"] == .int(3))
    }

    @Test(arguments: [
        (#"{"rows": 5}"#, "f.json: $.rows: expected an array"),
        (#"{"rows": [3]}"#, "f.json: $.rows[0]: expected an object"),
        ("[1]", "f.json: $[0]: expected an object"),
        ("42", "f.json: $: expected a document, an array of documents or a CouchDB dump"),
        ("{\"x\":1,\"y\":2}\n{oops\n", #"f.json: line 2, column 2: not valid JSON (unexpected "o" where a key in double quotes should be)"#),
        // One document over several lines: its own line and column.
        ("{\n  \"x\": 1,\n  \"y\": 2,,\n}\n", #"f.json: line 3, column 10: not valid JSON (unexpected "," where a key in double quotes should be)"#),
        (#"{"x":1,"y":2,"startTime":"yesterday"}"#, #"f.json: $.startTime: cannot read the time "yesterday""#),
        (#"{"x":1,"y":2,"bleScans":{"a":1}}"#, "f.json: $.bleScans: expected an array"),
        (#"{"x":1,"y":2,"wifiScans":[7]}"#, "f.json: $.wifiScans[0]: expected an object"),
        ("", "f.json: no documents found"),
        // What eval cannot use is refused, naming the value.
        (#"{"y":2}"#, "f.json: $.x: missing (a measurement needs its map position)"),
        (#"{"x":1.5,"y":2}"#, "f.json: $.x: expected a whole number of map units, found 1.5"),
        (#"[{"x":1,"y":2},{"x":1,"y":2,"bleScans":[{"address":"a","rssi":"abc"}]}]"#,
         #"f.json: $[1].bleScans[0].rssi: expected a number, found "abc""#),
        (#"[{"id":"r1","key":"r1","value":{"x":1,"y":"two"}}]"#,
         #"f.json: $[0].value.y: expected a whole number of map units, found "two""#),
    ])
    func badFilesGiveOneLineErrors(text: String, message: String) {
        #expect(throws: LegacyImport.ImportError(message)) {
            try LegacyImport.parse(Data(text.utf8), source: "f.json")
        }
        // Read a document at a time (`fprint import`): the same first error.
        #expect(throws: LegacyImport.ImportError(message)) { try self.streamed(Data(text.utf8), source: "f.json") }
    }

    /// A file's documents as `fprint import` reads them: one at a time.
    func streamed(_ data: Data, source: String, at: Date = Date()) throws -> (LegacyImport.Format, [NewDocument], Int) {
        let s = try LegacyImport.Source(data, source: source, timeZone: prague, importedAt: at)
        var documents: [NewDocument] = []
        var skipped = s.skipped
        for i in 0..<s.count {
            if let d = try s.document(at: i) { documents.append(d) } else { skipped += 1 }
        }
        return (s.format, documents, skipped)
    }

    /// Rows and lines are found without parsing the file whole, and give
    /// what the whole reading gives, in the file's order.
    @Test(arguments: [
        "legacy-ios-all-docs.json", "legacy-android.jsonl", "couch-view.json", "generated",
    ])
    func readingADocumentAtATimeGivesTheSameDocuments(name: String) throws {
        let data: Data
        if name == "generated" {
            // Ids out of text order, a design document, a deleted row, a body without `_id`.
            let rows = (0..<12).map { i in #"{"id":"m\#(12 - i)","value":{"x":\#(i),"y":2,"rssi":"-5\#(i)"}}"# }
                + [#"{"id":"_design/v","value":{"x":1,"y":1}}"#, #"{"id":"gone","value":null}"#]
            data = Data(#"{"total_rows":14, "rows": [\#(rows.joined(separator: ",\n"))]}"#.utf8)
        } else {
            data = try fixture(name)
        }
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let whole = try LegacyImport.parse(data, source: name, timeZone: prague, importedAt: at)
        let (format, documents, skipped) = try self.streamed(data, source: name, at: at)
        #expect(format == whole.format && skipped == whole.skipped)
        #expect(documents == whole.documents)
        if name == "generated" { #expect(documents.map(\.id) == (1...12).map { "m\(13 - $0)" } && skipped == 2) }
    }
}
