import Foundation
import Testing
@testable import FPCore

/// The evaluator's view of a document (radio-localization-eval's Measurement,
/// BleScan, WifiScan, CellScan): strict, every key required.
private struct EvaluatorMeasurement: Decodable {
    struct Ble: Decodable { let address: String; let rssi: Double?; let time: Int }
    struct Wifi: Decodable { let mac: String; let ssid: String; let rssi: Double; let time: Int }
    struct Cell: Decodable { let rssi: Double; let time: Int }
    let x: Int
    let y: Int
    let level: String
    let bleScans: [Ble]
    let wifiScans: [Wifi]
    let cellScans: [Cell]
}

@Suite struct GoldenDocumentTests {
    static func sample() -> MeasurementDocument {
        var d = MeasurementDocument()
        d.level = "J1NP"
        d.x = 363
        d.y = 701
        d.position = .init(x: 363, y: 701, rule: "surveyed")
        d.createdAt = "2026-11-22T06:30:20.000Z"
        d.startTime = "2026-11-22T06:30:00.000Z"
        d.endTime = "2026-11-22T06:30:20.000Z"
        d.durationMs = 20000
        d.deviceId = "6c1e3f0a-8d52-4f7b-9a41-2b5c7d9e0f13"
        d.hostname = "survey-laptop"
        d.hardware = "LENOVO 20XW"
        d.osId = "Debian GNU/Linux 12 (bookworm) / kernel 6.1.0-27-amd64"
        d.batteryLevel = 0.57
        d.batteryState = "charging"
        d.bleScans = [
            BLEScan(address: "C5:D5:21:51:D7:90", addressType: "public", rssi: -67, time: 112,
                    eventType: "ADV_NONCONN_IND",
                    beacon: Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: 55184,
                                   minor: 8529, measuredPower: -66)),
            BLEScan(address: "EF:F8:A4:20:26:8C", addressType: "public", rssi: nil, time: 230),
        ]
        d.wifiScans = [WiFiScan(mac: "00:11:22:33:44:55", ssid: "eduroam", rssi: -58, time: 1500, frequency: 2437, channel: 6)]
        d.cellScans = [CellScan(rssi: -85, time: 1000, type: "lte", cid: 26015, lac: 37101, psc: 211, mcc: "230", mnc: "01", serving: true)]
        d.geolocation = [GeoFix(lat: 50.204123, long: 15.829456, time: 1000, alt: 240.5, accuracy: 12)]
        d.providers = [
            "ble": ProviderStatus(status: .ok, source: "hci:hci0", samples: 2),
            "wifi": ProviderStatus(status: .ok, source: "nl80211:wlan0", samples: 1),
            "cell": ProviderStatus(status: .ok, source: "modemmanager", samples: 1),
            "location": ProviderStatus(status: .ok, source: "gpsd", samples: 1),
            "sensors": ProviderStatus(status: .unavailable, source: "iio", reason: "no IIO motion sensors"),
        ]
        d.generator = "fprint 0.1.0"
        return d
    }

    @Test func canonicalEncodingMatchesGoldenFile() throws {
        let json = CanonicalJSON.string(try JSONValueEncoder().encode(Self.sample())) + "\n"
        if ProcessInfo.processInfo.environment["FPRINT_RECORD"] != nil {
            try json.write(toFile: fixtureSourcePath("golden-static-document.json"), atomically: true, encoding: .utf8)
            Issue.record("recorded golden-static-document.json; unset FPRINT_RECORD and run again")
            return
        }
        let golden = String(decoding: try fixture("golden-static-document.json"), as: UTF8.self)
        #expect(json == golden)
    }

    @Test func goldenFileReadsUnderTheEvaluatorKeys() throws {
        let m = try JSONDecoder().decode(EvaluatorMeasurement.self, from: try fixture("golden-static-document.json"))
        #expect(m.x == 363 && m.y == 701 && m.level == "J1NP")
        #expect(m.bleScans.count == 2)
        #expect(m.bleScans[1].rssi == nil)  // "not available" is absent, never 127 or -127
        #expect(m.bleScans[0].address == "C5:D5:21:51:D7:90" && m.bleScans[0].rssi == -67 && m.bleScans[0].time == 112)
        #expect(m.wifiScans[0].mac == "00:11:22:33:44:55" && m.wifiScans[0].ssid == "eduroam")
        #expect(m.cellScans[0].rssi == -85)
    }

    @Test func roundTripsThroughJSON() throws {
        let doc = Self.sample()
        let back = try CanonicalJSON.decode(MeasurementDocument.self, from: try JSONValueEncoder().encode(doc))
        #expect(back == doc)
    }
}
