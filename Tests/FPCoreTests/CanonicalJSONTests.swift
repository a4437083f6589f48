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
        #expect(once.contains("1e-05"))
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
                                canonicalBody: CanonicalJSON.string(body))
        var expected = body
        expected["_id"] = "id/with \"quote\""
        expected["_rev"] = "3-c3"
        #expect(try CanonicalJSON.parse(text.documentJSON(revisions: false)) == expected)
        expected["_revisions"] = ["start": 3, "ids": ["c3", "b2"]]
        #expect(try CanonicalJSON.parse(text.documentJSON(revisions: true)) == expected)
        #expect(try text.content() == RevisionContent(id: text.id, rev: text.rev, deleted: false, body: body, history: history))
    }

    @Test func emptyBodiesAndTombstones() throws {
        let tombstone = RevisionText(id: "gone", rev: history[0], deleted: true, history: history, canonicalBody: "{}")
        #expect(tombstone.documentJSON(revisions: false) == #"{"_deleted":true,"_id":"gone","_rev":"3-c3"}"#)
        let parsed = try CanonicalJSON.parse(tombstone.documentJSON(revisions: true))
        #expect(parsed["_revisions"]?["ids"] == ["c3", "b2"])
        #expect(parsed.objectValue?.count == 4)
    }
}
