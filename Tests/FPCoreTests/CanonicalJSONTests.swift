import Foundation
import Testing
@testable import FPCore

@Suite struct CanonicalJSONTests {
    @Test func sortsKeysAndDropsWhitespace() throws {
        let v = try CanonicalJSON.parse(#"{ "b": [1, 2.5, "x"], "a": {"z": null, "y": true} }"#)
        #expect(CanonicalJSON.string(v) == #"{"a":{"y":true,"z":null},"b":[1,2.5,"x"]}"#)
    }

    @Test func wholeDoublesPrintAsIntegers() {
        #expect(CanonicalJSON.string(.double(3.0)) == "3")
        #expect(CanonicalJSON.string(.double(-0.5)) == "-0.5")
        #expect(CanonicalJSON.string(.double(.nan)) == "null")
    }

    @Test func escapesControlCharactersAndQuotes() {
        #expect(CanonicalJSON.string(.string("a\"b\\c\n\u{01}é")) == #""a\"b\\c\n\u0001é""#)
    }

    @Test func canonicalFormIsStableAcrossRoundTrips() throws {
        let text = #"{"x":363,"y":701.5,"s":"Žluťoučký kůň","n":[1e-5,12345678901234,true]}"#
        let once = CanonicalJSON.string(try CanonicalJSON.parse(text))
        let twice = CanonicalJSON.string(try CanonicalJSON.parse(once))
        #expect(once == twice)
        #expect(once.contains("1e-5"))  // the text as given: re-encoding would change it
    }

    @Test func valueEncoderMatchesFoundationEncoder() throws {
        var doc = MeasurementDocument()
        doc.level = "J1NP"
        doc.bleScans = [BLEScan(address: "AA:BB:CC:DD:EE:FF", rssi: -60, time: 5,
                                beacon: Beacon(type: "ibeacon", uuid: "U", major: 1, minor: 53, measuredPower: -66))]
        doc.providers["ble"] = ProviderStatus(status: .ok, source: "simulated:test", simulated: true, samples: 1)
        let direct = try JSONValueEncoder().encode(doc)
        let viaText = try CanonicalJSON.parse(JSONEncoder().encode(doc))
        #expect(CanonicalJSON.string(direct) == CanonicalJSON.string(viaText))
        #expect(direct["gyroX"] == .null)  // sensor keys are present as null, not missing
    }
}

@Suite struct RevisionTests {
    @Test func formatAndDeterminism() {
        let body: JSONValue = ["x": 1, "level": "J1NP"]
        let r1 = Revision.next(after: nil, body: body)
        #expect(r1.generation == 1)
        #expect(r1.description.wholeMatch(of: /1-[0-9a-f]{32}/) != nil)
        #expect(Revision.next(after: nil, body: ["level": "J1NP", "x": 1]) == r1)  // key order is irrelevant
        let r2 = Revision.next(after: r1, body: body)
        #expect(r2.generation == 2)
        #expect(r2.hash != r1.hash)
        #expect(Revision.next(after: r1, body: body, deleted: true) != r2)
    }

    @Test func parsesAndOrders() throws {
        let a = try #require(Revision("2-aaa"))
        let b = try #require(Revision("10-aaa"))
        #expect(a < b)  // generations compare as numbers, not strings
        #expect(Revision("x-1") == nil)
        #expect(Revision("0-abc") == nil)
        #expect(Revision("3-") == nil)
    }
}

@Suite struct ISOTimeTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(ISOTime.string(millisecondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTime.string(millisecondsSince1970: 1_763_792_503_123) == "2025-11-22T06:21:43.123Z")
        #expect(ISOTime.string(millisecondsSince1970: -1) == "1969-12-31T23:59:59.999Z")
        // Every field's padding, a leap day, the last representable second of year 9999.
        #expect(ISOTime.string(millisecondsSince1970: 951_782_400_123) == "2000-02-29T00:00:00.123Z")
        #expect(ISOTime.string(millisecondsSince1970: 1_795_607_904_546) == "2026-11-25T11:58:24.546Z")
        #expect(ISOTime.string(millisecondsSince1970: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
    }

    @Test func parsesOffsetsAndFractions() {
        #expect(ISOTime.milliseconds("2017-05-12T14:34:10+02:00") == 1_494_592_450_000)
        #expect(ISOTime.milliseconds("2017-05-12T12:34:10.250Z") == 1_494_592_450_250)
        #expect(ISOTime.isCanonical("2017-05-12T12:34:10.250Z"))
        #expect(!ISOTime.isCanonical("2017-05-12 12:34:10"))
    }
}

/// Revisions travel as stored text with the `_` members spliced in front.
@Suite struct RevisionTextTests {
    let history = [Revision(generation: 3, hash: "c3"), Revision(generation: 2, hash: "b2")]

    @Test func splicedDocumentEqualsTheParsedOne() throws {
        let body: JSONValue = ["x": 363, "note": "tab\there \"quoted\"", "bleScans": [["address": "AA", "rssi": -60]]]
        let text = RevisionText(id: "id/with \"quote\"", rev: history[0], deleted: false, history: history,
                                bodyText: CanonicalJSON.string(body))
        var expected = body
        expected["_id"] = "id/with \"quote\""
        expected["_rev"] = "3-c3"
        #expect(try JSONParser.parse(text.documentJSON(revisions: false)) == expected)
        expected["_revisions"] = ["start": 3, "ids": ["c3", "b2"]]
        #expect(try JSONParser.parse(text.documentJSON(revisions: true)) == expected)
        #expect(try text.content() == RevisionContent(id: text.id, rev: text.rev, deleted: false, body: body, history: history))
    }

    @Test func emptyBodiesAndTombstones() throws {
        let tombstone = RevisionText(id: "gone", rev: history[0], deleted: true, history: history, bodyText: "{}")
        #expect(tombstone.documentJSON(revisions: false) == Array(#"{"_deleted":true,"_id":"gone","_rev":"3-c3"}"#.utf8))
        let parsed = try JSONParser.parse(tombstone.documentJSON(revisions: true))
        #expect(parsed["_revisions"]?["ids"] == ["c3", "b2"])
        #expect(parsed.objectValue?.count == 4)
    }
}

/// Objects keep their members in canonical order whatever built them.
@Suite struct JSONObjectTests {
    @Test func membersAreInUTF8ByteOrder() throws {
        // "Z" (0x5A) < "a" (0x61) < "ab" < "é" (0xC3 0xA9) < "😀" (0xF0 …)
        let object: JSONObject = ["é": 3, "a": 1, "😀": 5, "Z": 0, "ab": 2]
        #expect(object.keys == ["Z", "a", "ab", "é", "😀"])
        #expect(CanonicalJSON.string(.object(object)) == #"{"Z":0,"a":1,"ab":2,"é":3,"😀":5}"#)
        // Parsing unsorted text gives the same object; a repeated key: the last wins
        let parsed = try CanonicalJSON.parse(#"{"😀":5,"é":3,"a":9,"ab":2,"Z":0,"a":1}"#)
        #expect(parsed == .object(object))
    }

    @Test func setRemoveAndLookUpAcrossSizes() {
        var object = JSONObject()
        for n in (0..<40).reversed() { object["k\(n)"] = .int(Int64(n)) }  // beyond the linear-scan size
        #expect(object.count == 40)
        #expect(object.keys == object.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(object["k7"] == 7 && object["k39"] == 39)
        #expect(object["nope"] == Optional.none && JSONObject()["x"] == Optional.none)  // absent, not a present null
        object["k7"] = "seven"
        #expect(object["k7"] == "seven" && object.count == 40)
        #expect(object.removeValue(forKey: "k7") == "seven")
        object["k8"] = nil
        #expect(object.count == 38 && object["k7"] == nil && object["k8"] == nil)
        var small: JSONObject = ["b": 1]
        small["a"] = 0
        small["c"] = 2
        #expect(small.keys == ["a", "b", "c"])
    }

    @Test func equalityAndHashIgnoreHowTheObjectWasBuilt() {
        var built = JSONObject()
        built["y"] = 2
        built["x"] = 1
        let literal: JSONObject = ["x": 1, "y": 2]
        #expect(built == literal)
        #expect(built.hashValue == literal.hashValue)
        #expect(JSONObject(["y": 2, "x": 1]) == literal)
        #expect(literal.dictionary == ["x": 1, "y": 2])
        #expect(literal.mapValues { _ in .null }.keys == ["x", "y"])
        #expect(literal.filter { $0.key == "y" } == ["y": 2])
    }

    @Test func settingAKeyOfAValueChangesItInPlace() {
        var value: JSONValue = ["a": 1]
        value["b"] = 2
        value["a"] = nil
        #expect(value == ["b": 2])
    }
}

/// The hand-written BLE encodings equal what Codable produces.
@Suite struct DirectJSONTests {
    /// Every stored property set, so both encodings must show every key.
    static var fullBeacon: Beacon {
        var b = Beacon(type: "eddystone-tlm", uuid: "FB0B57A2-8228-44CD-913A-94A122BA1206", major: 1, minor: 53, measuredPower: -66,
                       namespace: "00112233445566778899", instance: "aabbccddeeff", url: "https://x.test")
        b.companyId = 280
        b.batteryMilliVolts = 3000
        b.temperature = 21.5
        b.advertisingCount = 12
        b.uptimeTenths = 345
        return b
    }

    static var fullScan: BLEScan {
        var s = BLEScan(address: "C4:7C:8D:00:00:01", addressType: "random", rssi: -60, time: 1500, name: "Tag \"7\"",
                        eventType: "ADV_IND", txPower: -9, beacon: fullBeacon)
        s.companyId = 76
        s.serviceUuids = ["FEAA", "CBBFE0E1-F7F3-4206-84E0-84CBB3D09DFC"]
        s.data = "0201061aff"
        s.controller = 1
        return s
    }

    /// Names of the stored properties Mirror sees that are nil: a property added
    /// to the type but not to `fullScan`/`fullBeacon` (or to `jsonValue`) shows up here.
    static func unsetProperties(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            guard let label = child.label else { return nil }
            let mirror = Mirror(reflecting: child.value)
            return mirror.displayStyle == .optional && mirror.children.isEmpty ? label : nil
        }
    }

    @Test func fullySetValuesEncodeAsCodableDoes() throws {
        #expect(Self.unsetProperties(Self.fullScan).isEmpty)
        #expect(Self.unsetProperties(Self.fullBeacon).isEmpty)
        #expect(Self.fullBeacon.jsonValue == (try CanonicalJSON.value(of: Self.fullBeacon)))
        #expect(Self.fullScan.jsonValue == (try CanonicalJSON.value(of: Self.fullScan)))
        let keys = Self.fullScan.jsonValue.objectValue?.keys ?? []
        #expect(keys.count == Mirror(reflecting: Self.fullScan).children.count)
    }

    @Test func decodingGivesBackTheEncodedEntry() throws {
        // The Codable conformance is written by hand (the beacon is kept in a box)
        for scan in [Self.fullScan, BLEScan(address: "AA:BB:CC:DD:EE:FF", rssi: nil, time: 0)] {
            #expect(try CanonicalJSON.decode(BLEScan.self, from: scan.jsonValue) == scan)
            #expect(try JSONDecoder().decode(BLEScan.self, from: JSONEncoder().encode(scan)) == scan)
        }
        var changed = Self.fullScan
        changed.beacon?.minor = 54
        #expect(changed != Self.fullScan && changed.beacon?.minor == 54 && Self.fullScan.beacon?.minor == 53)
    }

    @Test func sparseValuesOmitWhatIsNil() throws {
        let bare = BLEScan(address: "AA:BB:CC:DD:EE:FF", rssi: nil, time: 0)
        #expect(bare.jsonValue == (try CanonicalJSON.value(of: bare)))
        #expect(bare.jsonValue == ["address": "AA:BB:CC:DD:EE:FF", "time": 0])
        // Inside a document the direct form is what the encoder uses
        var doc = MeasurementDocument()
        doc.bleScans = [Self.fullScan, bare]
        let encoded = try JSONValueEncoder().encode(doc)
        #expect(encoded["bleScans"] == .array([Self.fullScan.jsonValue, bare.jsonValue]))
        #expect(encoded == (try CanonicalJSON.value(of: doc)))
    }
}
