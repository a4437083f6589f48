import FPCore
import Foundation
import Testing

/// `MeasurementDocument.canonicalBytes` writes the BLE entries straight to
/// text: the bytes must be exactly the canonical form of the encoded value,
/// whatever the entries hold.
@Suite struct CanonicalDocumentTests {
    static func document(scans: [BLEScan]) -> MeasurementDocument {
        var d = MeasurementDocument()
        d.mode = .static
        d.level = "J1NP"
        d.x = 363
        d.y = 701
        d.createdAt = "2026-11-26T05:00:00.000Z"
        d.bleScans = scans
        d.wifiScans = [WiFiScan(mac: "02:11:22:33:00:01", ssid: "eduroam \"5\"", rssi: -40, time: 1500, frequency: 2437, channel: 6)]
        return d
    }

    static var scans: [BLEScan] {
        var tlm = DirectJSONTests.fullScan
        tlm.beacon?.temperature = -3.25
        var escaped = BLEScan(address: "AA:BB:CC:DD:EE:FF", rssi: nil, time: 0)
        escaped.name = "tab\there \\ \"quoted\" \u{1}"
        return [DirectJSONTests.fullScan, tlm, escaped,
                BLEScan(address: "C5:D5:21:51:00:01", addressType: "public", rssi: -71, time: 12, eventType: "ADV_NONCONN_IND",
                        beacon: Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: 1, minor: 7,
                                       measuredPower: -66))]
    }

    @Test func bytesEqualTheCanonicalFormOfTheValue() throws {
        for scans in [Self.scans, [], Array(repeating: Self.scans[3], count: 1000)] {
            let doc = Self.document(scans: scans)
            let expected = CanonicalJSON.bytes(try JSONValueEncoder().encode(doc))
            #expect(try doc.canonicalBytes() == expected)
            try Self.expectMembersAsTheSkimFindsThem(try doc.canonicalText())
        }
    }

    /// The members recorded while writing are those `JSONSkim` finds in the
    /// text (a store takes them without reading the text again).
    static func expectMembersAsTheSkimFindsThem(_ written: (text: [UInt8], members: [JSONSkim.Member])) throws {
        let skimmed = try #require(JSONSkim(written.text).value(in: 0..<written.text.count, levels: 1)?.members)
        #expect(written.members.map(\.key) == skimmed.map(\.key))
        #expect(written.members.map(\.text) == skimmed.map(\.text))
        #expect(written.members.map(\.value) == skimmed.map(\.value))
        #expect(written.members.map(\.node.count) == skimmed.map(\.node.count))
        #expect(written.members.allSatisfy(\.isCanonical) && skimmed.allSatisfy(\.isCanonical))
    }

    @Test func addedMembersTakeTheirPlaceInKeyOrder() throws {
        let doc = Self.document(scans: Self.scans)
        let probes: JSONValue = .array([["kind": "ping", "ms": 1.5]])
        var value = try JSONValueEncoder().encode(doc)
        value["networkProbes"] = probes
        value["aaFirst"] = true  // before bleScans
        let bytes = try doc.canonicalBytes(adding: [("networkProbes", probes), ("aaFirst", true)])
        #expect(bytes == CanonicalJSON.bytes(value))
        try Self.expectMembersAsTheSkimFindsThem(try doc.canonicalText(adding: [("networkProbes", probes), ("aaFirst", true)]))
        #expect(try CanonicalJSON.parse(Data(bytes)) == value)
    }
}

/// A replay's document has 100,000s of entries: from 32,768 on, the second
/// half is written on another core and joined (`canonicalBytes`). The text
/// must be the same as written in one piece, at odd and even counts.
@Suite struct CanonicalHalvesTests {
    @Test(arguments: [32_767, 32_768, 40_001])
    func entriesWrittenInHalvesEqualTheCanonicalFormOfTheValue(count: Int) throws {
        let base = CanonicalDocumentTests.scans
        let scans = (0..<count).map { i -> BLEScan in
            var s = base[i % base.count]
            s.time = i
            s.rssi = -40 - i % 50
            return s
        }
        let doc = CanonicalDocumentTests.document(scans: scans)
        let bytes = try doc.canonicalBytes()
        #expect(bytes == CanonicalJSON.bytes(try JSONValueEncoder().encode(doc)))
        try CanonicalDocumentTests.expectMembersAsTheSkimFindsThem(try doc.canonicalText())
    }
}
