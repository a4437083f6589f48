import FPHCI
import FPHex
import Testing

@Suite("Beacon advertising data and advertising commands")
struct BeaconAdvertisementTests {
    static let uuid = hex("FB0B57A2822844CD913A94A122BA1206")

    /// The same bytes the VM test has hcitool send by hand (Tests/vm/guest.sh).
    @Test func iBeaconBytesMatchTheHandWrittenFrame() {
        let data = BeaconAdvertisement.iBeacon(uuid: Self.uuid, major: 1, minor: 53, measuredPower: -66)
        #expect(Hex.string(data) == "0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035be")
    }

    @Test(arguments: [(UInt16(0), UInt16(0), Int8(-59)), (1, 53, -66), (65535, 65535, -100), (0x1234, 0xABCD, 0)])
    func iBeaconRoundTripsThroughTheDecoder(major: UInt16, minor: UInt16, power: Int8) throws {
        let data = BeaconAdvertisement.iBeacon(uuid: Self.uuid, major: major, minor: minor, measuredPower: power)
        #expect(data.count <= 31)
        let frame = BeaconFrame.decode(try AdvertisingData(bytes: data))
        #expect(frame == .iBeacon(uuid: "FB0B57A2-8228-44CD-913A-94A122BA1206", major: major, minor: minor, measuredPower: power))
    }

    @Test func eddystoneUIDRoundTripsThroughTheDecoder() throws {
        let data = BeaconAdvertisement.eddystoneUID(
            namespace: hex("00112233445566778899"), instance: hex("AABBCCDDEEFF"), txPowerAt0m: -18)
        #expect(data.count == 31)  // exactly a legacy advertisement
        let ad = try AdvertisingData(bytes: data)
        #expect(ad.flags == 0x06)
        #expect(ad.serviceUUIDs == ["FEAA"])
        #expect(BeaconFrame.decode(ad) == .eddystoneUID(txPowerAt0m: -18, namespace: "00112233445566778899", instance: "aabbccddeeff"))
    }

    @Test(arguments: [
        ("FB0B57A2-8228-44CD-913A-94A122BA1206", true), ("fb0b57a2822844cd913a94a122ba1206", true),
        ("FB0B57A2-8228-44CD-913A-94A122BA120", false), ("FB0B57A28-228-44CD-913A-94A122BA1206", false),
        ("GB0B57A2-8228-44CD-913A-94A122BA1206", false), ("", false), ("FB0B57A2-8228-44CD-913A-94A122BA1206-", false),
    ])
    func uuidText(_ text: String, valid: Bool) {
        #expect((BeaconIdentityText.uuid(text) == Self.uuid) == valid)
    }

    @Test func hexIdentities() {
        #expect(BeaconIdentityText.hex("0x00112233445566778899", bytes: 10) == hex("00112233445566778899"))
        #expect(BeaconIdentityText.hex("aabbccddeeff", bytes: 6) == hex("AABBCCDDEEFF"))
        #expect(BeaconIdentityText.hex("aabbccddee", bytes: 6) == nil)
        #expect(BeaconIdentityText.hex("aabbccddeefg", bytes: 6) == nil)
    }

    /// 0.625 ms units: 100 ms is 160 (0x00A0), the ends of the range are 0x0020 and 0x4000.
    @Test func intervalUnits() {
        typealias P = HCICommand.AdvertisingParameters
        #expect(P.units(milliseconds: 100) == 0x00A0)
        #expect(P.units(milliseconds: 20) == 0x0020)
        #expect(P.units(milliseconds: 10240) == 0x4000)
        #expect(P.units(milliseconds: 1000) == 1600)
        #expect(P.units(milliseconds: 21) == 34)  // 33.6 rounds to 34
        #expect(P.units(milliseconds: 19) == nil)
        #expect(P.units(milliseconds: 10241) == nil)
        #expect(P.units(milliseconds: -100) == nil)
    }

    @Test func legacyCommandBytes() {
        let p = HCICommand.setAdvertisingParameters(.init(interval: 0x00A0, randomAddress: false))
        // opcode 0x2006 LE, 15 parameters: min, max, ADV_NONCONN_IND, public, peer type + address, channels 37-39, no filter.
        #expect(Hex.string(p.h4) == "0106200f" + "a000" + "a000" + "03" + "00" + "00" + "000000000000" + "07" + "00")
        let random = HCICommand.setAdvertisingParameters(.init(interval: 0x4000, randomAddress: true))
        #expect(Hex.string(random.parameters) == "0040" + "0040" + "03" + "01" + "00000000000000" + "0700")
        let data = HCICommand.setAdvertisingData(hex("020106"))
        #expect(data.h4.count == 4 + 32)  // length byte + 31 data bytes, zero padded
        #expect(Hex.string(data.h4.prefix(8)) == "0108202003020106")
        #expect(data.h4.dropFirst(8).allSatisfy { $0 == 0 })
        #expect(Hex.string(HCICommand.setAdvertisingEnable(true).h4) == "010a200101")
        #expect(Hex.string(HCICommand.setAdvertisingEnable(false).h4) == "010a200100")
        // The address goes little-endian: C1:22:33:44:55:66 → 66 55 44 33 22 C1.
        #expect(Hex.string(HCICommand.setRandomAddress(BDAddress(0xC1, 0x22, 0x33, 0x44, 0x55, 0x66)).h4) == "0105200666554433" + "22c1")
    }

    @Test func extendedCommandBytes() {
        let p = HCICommand.setExtendedAdvertisingParameters(handle: 3, .init(interval: 0x00A0, randomAddress: true))
        #expect(p.parameters.count == 25)
        #expect(Hex.string(p.h4) == "01362019" + "03" + "1000" + "a00000" + "a00000" + "07" + "01" + "00" + "000000000000"
            + "00" + "7f" + "01" + "00" + "01" + "00" + "00")
        #expect(Hex.string(HCICommand.setExtendedAdvertisingData(handle: 3, hex("020106")).h4) == "01372007" + "030301" + "03" + "020106")
        #expect(Hex.string(HCICommand.setExtendedAdvertisingEnable(handle: 3, true).h4) == "01392006" + "0101" + "03" + "0000" + "00")
        #expect(Hex.string(HCICommand.removeAdvertisingSet(handle: 3).h4) == "013c200103")
        #expect(HCICommand.name(opcode: 0x2006) == "LE Set Advertising Parameters")
    }

    @Test func addressText() {
        #expect(BDAddress(text: "c1:22:33:44:55:6F") == BDAddress(0xC1, 0x22, 0x33, 0x44, 0x55, 0x6F))
        #expect(BDAddress(text: "C1:22:33:44:55") == nil)
        #expect(BDAddress(text: "C1:22:33:44:55:6G") == nil)
        #expect(BDAddress(text: "C1:22:33:44:55:666") == nil)
    }

    /// Non-resolvable private: the two top bits 0, never all zeros or all ones below them.
    @Test(arguments: [UInt64(0), UInt64.max, 0x3FFF_FFFF_FFFF, 0xDEAD_BEEF_CAFE_F00D])
    func nonResolvablePrivateAddresses(_ random: UInt64) {
        let a = BDAddress.nonResolvablePrivate(random)
        #expect(a.bytes.0 & 0xC0 == 0)
        #expect(a.packed != 0 && a.packed != 0x3FFF_FFFF_FFFF)
    }
}
