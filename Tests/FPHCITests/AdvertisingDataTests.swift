import FPHCI
import Testing

@Suite("AD structures and beacons")
struct AdvertisingDataTests {
    @Test func eddystoneUIDVector() throws {
        let ad = try AdvertisingData(bytes: hex("0201060303aafe1716aafe00e78b0ca750095477cb3e770000000000010000"))
        #expect(ad.flags == 0x06)
        #expect(ad.serviceUUIDs == ["FEAA"])
        #expect(ad.serviceData.first?.uuid == "FEAA")
        #expect(BeaconFrame.decode(ad) == .eddystoneUID(txPowerAt0m: -25, namespace: "8b0ca750095477cb3e77", instance: "000000000001"))
    }

    @Test func eddystoneTLMVector() throws {
        let ad = try AdvertisingData(bytes: hex("0201060303aafe1116aafe20000bb817800001e24000008ca0"))
        #expect(BeaconFrame.decode(ad) == .eddystoneTLM(
            batteryMilliVolts: 3000, temperatureCelsius: 23.5, advertisingCount: 123456, uptimeTenths: 36000))
    }

    @Test func eddystoneURLVector() throws {
        let ad = try AdvertisingData(bytes: hex("0201060303aafe0e16aafe10ee016578616d706c6500"))
        #expect(BeaconFrame.decode(ad) == .eddystoneURL(txPowerAt0m: -18, url: "https://www.example.com/"))
    }

    @Test func iBeaconMeasuredPowerIsTwosComplement() throws {
        let ad = try AdvertisingData(bytes: hex("1aff4c000215fb0b57a2822844cd913a94a122ba120600010035be"))
        guard case .iBeacon(_, _, _, let power)? = BeaconFrame.decode(ad) else {
            Issue.record("not an iBeacon")
            return
        }
        #expect(power == -66)  // 0xBE, not -62
    }

    @Test func altBeacon() throws {
        // Length 0x1b, 0xff, company 0x0118 (Radius), BEAC, 20-byte id, ref RSSI -59 (0xC5), reserved 0x00.
        let ad = try AdvertisingData(bytes: hex("1bff1801beac" + "00112233445566778899aabbccddeeff" + "0007" + "0009" + "c5" + "00"))
        #expect(BeaconFrame.decode(ad) == .altBeacon(
            companyID: 0x0118, uuid: "00112233-4455-6677-8899-AABBCCDDEEFF", major: 7, minor: 9, referenceRSSI: -59))
    }

    @Test func namesUUIDsServiceDataTXPower() throws {
        let bytes = hex(
            "0201" + "1a"  // flags
            + "050874657374"  // short name "test"
            + "0709" + "666f6f626172"  // complete name "foobar" (wins over short)
            + "020a" + "f4"  // TX power -12
            + "05030f180a18"  // complete 16-bit: 180F, 180A
            + "050478563412"  // incomplete 32-bit: 12345678
            + "1107" + "0123456789abcdef0123456789abcdef"  // 128-bit
            + "0516" + "d2fe0102"  // service data 16-bit FED2, payload 01 02
            + "05ff" + "e000aabb"  // manufacturer 0x00E0, payload aa bb
            + "022a07")  // unknown type 0x2A kept raw
        let ad = try AdvertisingData(bytes: bytes)
        #expect(ad.flags == 0x1A)
        #expect(ad.name == "foobar")
        #expect(ad.nameIsComplete)
        #expect(ad.txPowerLevel == -12)
        #expect(ad.serviceUUIDs == ["180F", "180A", "12345678", "EFCDAB89-6745-2301-EFCD-AB8967452301"])
        #expect(ad.serviceData == [.init(uuid: "FED2", payload: [0x01, 0x02])])
        #expect(ad.manufacturer == [.init(companyID: 0x00E0, payload: [0xAA, 0xBB])])
        #expect(ad.other == [.init(type: 0x2A, payload: [0x07])])
        #expect(BeaconFrame.decode(ad) == nil)
    }

    @Test func zeroLengthPaddingInTheMiddleAndAtTheEnd() throws {
        let ad = try AdvertisingData(bytes: hex("020106" + "00" + "03084142" + "000000"))
        #expect(ad.flags == 0x06)
        #expect(ad.name == "AB")
        #expect(!ad.nameIsComplete)
    }

    @Test(arguments: [
        ("structure overruns data", "0201060509414243"),
        ("manufacturer without company id", "02ff4c"),
        ("16-bit UUID list of odd length", "0403aafe01"),
        ("TX power of two bytes", "030a0102"),
        ("empty flags", "0101"),
        ("service data shorter than its UUID", "0216aa"),
    ])
    func malformedStructuresThrowWithOffset(name: String, bytes: String) {
        #expect(throws: HCIParseError.self, "\(name)") { _ = try AdvertisingData(bytes: hex(bytes)) }
    }

    @Test func overrunNamesItsOffset() {
        #expect(throws: HCIParseError.truncated(what: "AD structure", offset: 4, needed: 5, available: 4)) {
            _ = try AdvertisingData(bytes: hex("0201060509414243"))
        }
    }

    @Test func malformedBeaconPayloadsAreNotBeacons() throws {
        // iBeacon with one byte missing, Eddystone URL with an unknown scheme, TLM of a newer version.
        for text in ["19ff4c000215fb0b57a2822844cd913a94a122ba120600010035", "0716aafe10ee0961", "1116aafe20010bb817800001e24000008ca0"] {
            #expect(BeaconFrame.decode(try AdvertisingData(bytes: hex(text))) == nil, "\(text)")
        }
    }
}
