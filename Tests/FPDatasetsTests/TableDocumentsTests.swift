import FPCore
import FPDatasets
import Foundation
import Testing

@Suite struct TableDocumentsTests {
    static let docs = TableDocuments(format: "uji-longterm", dataset: "uji-lib-longterm", mapTemplate: "UJI-LIB-{floor}",
                                     importedAt: "2026-11-26T10:00:00.000Z")

    @Test func aFingerprintAsAMeasurement() throws {
        let table = FingerprintTable(file: "db/01/trn01rss.csv", radio: .wifi, transmitters: (1...620).map { String(format: "WAP%03d", $0) },
                                     rows: [TableRow(line: 1, row: 1, x: 12.91385188, y: 29.21654402, floor: 3, timeMs: 1_464_875_537_232,
                                                     timeText: "20160602155217232",
                                                     readings: [.init(transmitter: 0, rssi: -90), .init(transmitter: 619, rssi: -62)],
                                                     tags: [.init("month", "01"), .init("set", "train")])])
        let doc = try #require(try Self.docs.documents(table, stem: "01:trn01").first)
        #expect(doc.id.hasSuffix(":uji-lib-longterm:01:trn01:1") && doc.id.count == 8 + 1 + 27)
        #expect(doc.id == (try Self.docs.documents(table, stem: "01:trn01").first?.id))  // the same ids again
        let expected = """
            {"bleScans":[],"cellScans":[],"collectBluetoothData":false,"collectBtsData":false,"collectGeolocationData":false,\
            "collectWifiData":true,"couchbase_sync_gateway_id":"-","createdAt":"2016-06-02T13:52:17.232Z","durationMs":0,\
            "endTime":"2016-06-02T13:52:17.232Z","floor":3,"generator":"fprint import (uji-longterm)","geolocation":[],\
            "imported":{"at":"2026-11-26T10:00:00.000Z","dataset":"uji-lib-longterm","file":"db/01/trn01rss.csv",\
            "format":"uji-longterm","line":1,"radio":"wifi","row":1,"time":"20160602155217232",\
            "transmitters":[{"from":1,"prefix":"WAP","to":620,"width":3}]},"level":"UJI-LIB-3","mode":"static",\
            "position":{"rule":"dataset","unit":"m","x":12.91385188,"y":29.21654402},\
            "providers":{"wifi":{"samples":2,"simulated":false,"source":"dataset:uji-lib-longterm","status":"ok"}},\
            "schemaVersion":1,"startTime":"2016-06-02T13:52:17.232Z","tags":{"month":"01","set":"train"},"type":"scan",\
            "wifiScans":[{"mac":"WAP001","rssi":-90,"ssid":"","time":0},{"mac":"WAP620","rssi":-62,"ssid":"","time":0}],\
            "x":13,"y":29}
            """
        #expect(CanonicalJSON.string(doc.body) == expected)
        // The contract's reader takes it (what `fprint show` does).
        let decoded = try CanonicalJSON.decode(MeasurementDocument.self, from: doc.body)
        #expect(decoded.level == "UJI-LIB-3" && decoded.wifiScans.count == 2 && decoded.position?.x == 12.91385188)
        #expect(decoded.providers["wifi"]?.simulated == false && decoded.deviceId.isEmpty && decoded.hostname == nil)
    }

    @Test func bleReadingsKeepTheirFractionsAndTheMapTemplateFillsIn() throws {
        var docs = TableDocuments(format: "table", dataset: "ble-flat-robot", mapTemplate: "{dataset}-{BUILDINGID}",
                                  importedAt: "2026-11-26T10:00:00.000Z")
        docs.extraTags = [.init("set", "train")]
        let table = FingerprintTable(file: "c.csv", radio: .ble, transmitters: ["rssi_1", "rssi_2"],
                                     rows: [TableRow(line: 2, row: 1, x: -3.5, y: 2.5, readings: [.init(transmitter: 1, rssi: -56.49533053638751)],
                                                     tags: [.init("BUILDINGID", "1")])])
        let body = try #require(try docs.documents(table, stem: "c").first?.body)
        #expect(body["level"] == "ble-flat-robot-1")
        #expect(body["bleScans"] == [["address": "rssi_2", "rssi": .double(-56.49533053638751), "time": 0]])
        #expect(body["wifiScans"] == [])
        // Half away from zero, as the evaluator's whole units.
        #expect(body["x"] == -4 && body["y"] == 3 && body["floor"] == nil && body["createdAt"] == nil)
        #expect(body["tags"] == ["BUILDINGID": "1", "set": "train"])
        #expect(body["imported"]?["transmitters"] == ["rssi_1", "rssi_2"])
    }

    @Test func templatesAndPositionsAreChecked() {
        let docs = TableDocuments(format: "table", dataset: "d", mapTemplate: "{dataset}-{floor}-{ROOM}", importedAt: "")
        #expect(datasetError { try docs.checkTemplate(tagKeys: ["ROOM"], hasFloor: false, file: "f.csv") }?.description
            == "f.csv: --map '{dataset}-{floor}-{ROOM}': {floor} is not mapped (--floor-column)")
        #expect(datasetError { try docs.checkTemplate(tagKeys: [], hasFloor: true, file: "f.csv") }?.description
            == "f.csv: --map '{dataset}-{floor}-{ROOM}': {ROOM} is not a column")
        let unplaced = FingerprintTable(file: "w.csv", radio: .ble, transmitters: ["a"], rows: [TableRow(line: 7, row: 6)])
        #expect(datasetError { _ = try docs.documents(unplaced, stem: "w") }?.description
            == "w.csv: line 7: no position: a stored measurement needs --x-column and --y-column")
    }

    @Test func transmitterColumnsRoundTrip() {
        let lists: [[String]] = [
            (1...620).map { String(format: "WAP%03d", $0) }, ["rssi_1", "rssi_2", "rssi_3", "rssi_10", "x", "rssi_11"],
            ["a", "b"], [], ["AP9", "AP10", "AP11", "AP12"], ["07", "08", "09", "10"],
        ]
        for names in lists {
            let encoded = TransmitterColumns.encode(names)
            #expect(TransmitterColumns.decode(encoded) == names, "\(CanonicalJSON.string(encoded))")
        }
        #expect(CanonicalJSON.string(TransmitterColumns.encode(lists[0])) == #"[{"from":1,"prefix":"WAP","to":620,"width":3}]"#)
        #expect(TransmitterColumns.decode(["x", 3]) == nil)
    }
}
