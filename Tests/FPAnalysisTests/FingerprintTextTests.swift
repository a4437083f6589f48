import FPCore
import Foundation
import Testing

@testable import FPAnalysis

/// The byte walk of stored bodies (`init(id:text:names:)`) must read every
/// document exactly as the full reader (`init(id:json:)`) does, and leave to
/// it, with its error, everything it does not expect.
@Suite struct FingerprintTextTests {
    static let documents: [String] = [
        // Canonical stored bodies: integer and fractional RSSI, a null RSSI
        // (skipped), a missing and a fractional time, unknown keys, mixed-case addresses.
        #"{"bleScans":[{"address":"C5:D5:21:51:00:0A","addressType":"public","beacon":{"major":1},"rssi":-67,"time":100},"#
            + #"{"address":"c5:d5:21:51:00:0a","rssi":-67.5,"time":250.7},{"address":"AA:BB:CC:DD:EE:FF","rssi":null,"time":3}],"#
            + #""level":"J3NP","mode":"static","wifiScans":[{"channel":6,"mac":"02:11:22:33:00:01","rssi":-40},"#
            + #"{"mac":"02:11:22:33:00:02","rssi":-1e1,"ssid":"a\"b","time":-5}],"x":363,"y":701}"#,
        // No lists, null level, x written with a fraction (whole), a long integer time.
        #"{"bleScans":null,"level":null,"x":12.0,"y":-3,"wifiScans":[{"mac":"m","rssi":-50,"time":12345678901234567}]}"#,
        // Empty lists, keys in another order, white space.
        #"{ "y": 1, "x": 2, "wifiScans": [], "bleScans": [ ] }"#,
        // An escape in an address: the full reader's path.
        #"{"bleScans":[{"address":"C5\u003AD5","rssi":-60,"time":1}],"x":1,"y":1}"#,
        // An imported dataset's fingerprint: exact position in metres, floor, tags, provenance with its columns.
        #"{"createdAt":"2016-06-02T13:52:17.232Z","floor":3,"imported":{"dataset":"uji-lib-longterm","radio":"wifi","#
            + #""transmitters":[{"from":1,"prefix":"WAP","to":5,"width":3},"X"]},"level":"UJI-LIB-3","#
            + #""position":{"rule":"dataset","unit":"m","x":12.91385188,"y":29.21654402},"sessionId":"s1","#
            + #""tags":{"campaign":"trn01","month":"01","n":3,"w\u00e9":"\u00e9t\u00e9"},"#
            + #""wifiScans":[{"mac":"WAP001","rssi":-90,"ssid":"","time":0}],"x":13,"y":29}"#,
        // The same keys of other types are not labels, and never refused: the document still evaluates.
        #"{"floor":"3","imported":{"dataset":7,"transmitters":"WAP001..WAP005"},"position":[1,2],"sessionId":null,"#
            + #""tags":["month"],"createdAt":"yesterday","x":1,"y":2}"#,
        #"{"floor":3.5,"imported":null,"position":{"x":"1","y":2},"tags":null,"x":1,"y":2}"#,
    ]

    static let broken: [String] = [
        #"{"x":1}"#,  // no y
        #"{"x":1.5,"y":1}"#,  // not whole
        #"{"bleScans":[{"rssi":-60}],"x":1,"y":1}"#,  // no address
        #"{"bleScans":[{"address":"a","mac":5,"rssi":-60}],"x":1,"y":1}"#,  // mac of the wrong type
        #"{"wifiScans":{"mac":"m"},"x":1,"y":1}"#,  // not an array
        #"{"level":3,"x":1,"y":1}"#,
        #"{"wifiScans":[{"mac":"m","rssi":"-50"}],"x":1,"y":1}"#,  // a number as a string
        #"[1,2]"#,
    ]

    @Test(arguments: documents)
    func readsAsTheFullReader(text: String) throws {
        let full = try Fingerprint(id: "d", json: Data(text.utf8))
        let names = TransmitterNames()
        let lean = try Fingerprint(id: "d", text: text, names: names)
        #expect(lean == full)
        // Read again through the same names: the same ids, shared.
        #expect(try Fingerprint(id: "d", text: text, names: names) == full)
    }

    @Test func samplesAreWhatTheDocumentSays() throws {
        let fp = try Fingerprint(id: "d", text: Self.documents[0], names: TransmitterNames())
        #expect(fp.x == 363 && fp.y == 701 && fp.level == "J3NP")
        #expect(fp.ble == [.init(transmitter: "BLE:c5:d5:21:51:00:0a", rssi: -67, time: 100),
                           .init(transmitter: "BLE:c5:d5:21:51:00:0a", rssi: -67.5, time: 250)])
        #expect(fp.wifi == [.init(transmitter: "WIFI:02:11:22:33:00:01", rssi: -40, time: 0),
                            .init(transmitter: "WIFI:02:11:22:33:00:02", rssi: -10, time: -5)])
    }

    @Test func labelsAreWhatTheDocumentSays() throws {
        let fp = try Fingerprint(id: "d", text: Self.documents[4], names: TransmitterNames())
        let l = fp.labels
        #expect(l.exactX == 12.91385188 && l.exactY == 29.21654402 && l.inMetres && l.floor == 3)
        #expect(l.tags == [.init("campaign", "trn01"), .init("month", "01"), .init("wé", "été")])
        #expect(l.sessionId == "s1" && l.dataset == "uji-lib-longterm" && l.createdAtMs == 1_464_875_537_232)
        #expect(l.columns?.ids == ["WIFI:WAP001", "WIFI:WAP002", "WIFI:WAP003", "WIFI:WAP004", "WIFI:WAP005", "WIFI:X"])
        for lenient in Self.documents[5...6] {
            let other = try Fingerprint(id: "d", text: lenient, names: TransmitterNames())
            #expect(other.labels == Fingerprint.Labels() && other.x == 1 && other.y == 2)
        }
        // One list of columns for every fingerprint of a table (on the byte walk: no escaped key here).
        let plain = Self.documents[4].replacingOccurrences(of: #","w\u00e9":"\u00e9t\u00e9""#, with: "")
        let names = TransmitterNames()
        let a = try Fingerprint(id: "a", text: plain, names: names)
        let b = try Fingerprint(id: "b", text: plain, names: names)
        let full = try Fingerprint(id: "a", json: Data(plain.utf8))
        #expect(a.labels.tags.count == 2 && a == full)
        #expect(a.labels.columns === b.labels.columns)
    }

    @Test(arguments: broken)
    func leavesErrorsToTheFullReader(text: String) {
        var full: FingerprintError?
        do { _ = try Fingerprint(id: "d", json: Data(text.utf8)) } catch { full = error }
        var lean: FingerprintError?
        do { _ = try Fingerprint(id: "d", text: text, names: TransmitterNames()) } catch { lean = error }
        #expect(full != nil && lean == full)
    }
}
