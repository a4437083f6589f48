import FPHCI
import Testing

@Suite("LE advertising reports")
struct AdvertisingReportTests {
    // The vectors file's full event: ADV_NONCONN_IND, public AA:BB:CC:DD:EE:FF, RSSI -60, iBeacon.
    static let vector = "043e2a02010300ffeeddccbbaa1e0201061aff4c000215fb0b57a2822844cd913a94a122ba120600010035bec4"

    @Test func vectorEventDecodesEveryField() throws {
        let reports = try AdvertisingReports.parse(h4: hex(Self.vector)[...])
        #expect(reports.count == 1)
        let r = try #require(reports.first)
        #expect(r.eventType == .legacy(.advNonconnInd))
        #expect(r.eventType.name == "ADV_NONCONN_IND")
        #expect(r.addressType == .publicDevice)
        #expect(r.address.description == "AA:BB:CC:DD:EE:FF")
        #expect(r.rssi == -60)
        #expect(r.txPower == nil)
        #expect(r.data.count == 30)
        let ad = try AdvertisingData(bytes: r.data)
        #expect(ad.flags == 0x06)
        #expect(ad.manufacturer.first?.companyID == 0x004C)
        #expect(BeaconFrame.decode(ad) == .iBeacon(
            uuid: "FB0B57A2-8228-44CD-913A-94A122BA1206", major: 1, minor: 53, measuredPower: -66))
    }

    @Test func everyProperPrefixFailsCleanly() throws {
        let full = hex(Self.vector)
        for n in 0..<full.count {
            #expect(throws: HCIParseError.self, "prefix of \(n) bytes") {
                _ = try AdvertisingReports.parse(HCIEvent(h4: full[0..<n]))
            }
        }
    }

    /// Two legacy reports in one event, read with a cursor.
    static let twoReports: [UInt8] = [
        0x04, 0x3E, 0x19,  // H4 event, LE Meta, length 25
        0x02,  // Subevent: LE Advertising Report
        0x02,  // Num_Reports
        0x00,  // [0] Event_Type ADV_IND
        0x01,  // [0] Address_Type random
        0x06, 0x05, 0x04, 0x03, 0x02, 0xC1,  // [0] Address C1:02:03:04:05:06
        0x03, 0x02, 0x01, 0x06,  // [0] Data_Length 3, Flags 0x06
        0xB0,  // [0] RSSI -80
        0x04,  // [1] Event_Type SCAN_RSP
        0x00,  // [1] Address_Type public
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66,  // [1] Address 66:55:44:33:22:11
        0x00,  // [1] Data_Length 0
        0x7F,  // [1] RSSI 127 = not available
    ]

    @Test func twoReportsInOneEvent() throws {
        let reports = try AdvertisingReports.parse(h4: Self.twoReports[...])
        #expect(reports.count == 2)
        #expect(reports[0].eventType.name == "ADV_IND")
        #expect(reports[0].addressType == .randomDevice)
        #expect(reports[0].address.description == "C1:02:03:04:05:06")
        #expect(reports[0].rssi == -80)
        #expect(Array(reports[0].data) == [0x02, 0x01, 0x06])
        #expect(reports[1].eventType.name == "SCAN_RSP")
        #expect(reports[1].address.description == "66:55:44:33:22:11")
        #expect(reports[1].rssi == nil)
        #expect(reports[1].data.isEmpty)
        for n in 0..<Self.twoReports.count {
            #expect(throws: HCIParseError.self) { _ = try AdvertisingReports.parse(HCIEvent(h4: Self.twoReports[0..<n])) }
        }
    }

    /// One extended report; Event_Type 0x8013 has the reserved bit 15 set (Broadcom).
    static let extended: [UInt8] = [
        0x04, 0x3E, 0x1D,  // H4 event, LE Meta, length 29
        0x0D,  // Subevent: LE Extended Advertising Report
        0x01,  // Num_Reports
        0x13, 0x80,  // Event_Type: legacy ADV_IND + reserved bit 15
        0x02,  // Address_Type public identity
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06,  // Address 06:05:04:03:02:01
        0x01, 0x00, 0xFF,  // Primary_PHY 1M, Secondary_PHY none, SID none
        0xF8,  // TX_Power -8
        0xC4,  // RSSI -60
        0x00, 0x00,  // Periodic_Advertising_Interval
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // Direct_Address_Type, Direct_Address
        0x03, 0x02, 0x01, 0x1A,  // Data_Length 3, Flags
    ]

    @Test func extendedReportMasksReservedBit() throws {
        let r = try #require(try AdvertisingReports.parse(h4: Self.extended[...]).first)
        #expect(r.eventType == .legacy(.advInd))
        #expect(r.addressType == .publicIdentity)
        #expect(r.address.description == "06:05:04:03:02:01")
        #expect(r.txPower == -8)
        #expect(r.rssi == -60)
        #expect(r.primaryPHY == 1)
        #expect(r.advertisingSID == 0xFF)
        #expect(try AdvertisingData(bytes: r.data).flags == 0x1A)
        for n in 0..<Self.extended.count {
            #expect(throws: HCIParseError.self) { _ = try AdvertisingReports.parse(HCIEvent(h4: Self.extended[0..<n])) }
        }
    }

    @Test(arguments: [
        (0x0000 as UInt16, "EXT_NONCONN"), (0x0001, "EXT_CONN"), (0x0003, "EXT_CONN_SCAN"),
        (0x000A, "EXT_SCAN_SCAN_RSP"), (0x0020, "EXT_NONCONN_INCOMPLETE"), (0x8040, "EXT_NONCONN_TRUNCATED"),
        (0x0010, "ADV_NONCONN_IND"), (0x0015, "ADV_DIRECT_IND"), (0x001B, "SCAN_RSP"), (0x0012, "ADV_SCAN_IND"),
    ])
    func extendedEventTypeNames(bits: UInt16, name: String) {
        #expect(AdvertisingEventType(extendedBits: bits).name == name)
    }

    /// Garbage that must be rejected with an error, never a crash or a report.
    @Test(arguments: [
        ("empty", ""),
        ("only H4 type", "04"),
        ("not an event", "01030c00"),
        ("length longer than parameters", "043e0502"),
        ("length shorter than parameters", "043e0102ff"),
        ("Num_Reports 0", "043e020200"),
        ("Num_Reports 0x1A", "043e02021a"),
        ("only Num_Reports", "043e03020100"),
        ("bad legacy Event_Type", "043e0c020109000102030405060000"),
        ("bad Address_Type", "043e0c020100040102030405060000"),
        ("partial address", "043e06020100000102"),
        ("no RSSI", "043e0b0201000001020304050600"),
        ("Data_Length over 31", "043e0c020100000102030405062000"),
        ("Data_Length past the end", "043e0d02010000010203040506050201"),
        ("trailing byte", "043e0d0201000001020304050600c4ff"),
    ])
    func garbageIsRejected(name: String, bytes: String) {
        #expect(throws: HCIParseError.self, "\(name)") { _ = try AdvertisingReports.parse(HCIEvent(h4: hex(bytes)[...])) }
    }

    @Test func otherEventsAreNotReports() throws {
        // Command Complete for LE Set Scan Enable: no reports, no error.
        #expect(try AdvertisingReports.parse(h4: hex("040e04010c2000")[...]).isEmpty)
        // LE Connection Complete subevent: not a report.
        #expect(try AdvertisingReports.parse(h4: hex("043e020100")[...]).isEmpty)
    }

    @Test func errorsCarryOffsets() {
        do {
            _ = try AdvertisingReports.parse(h4: hex("043e0c020109000102030405060000")[...])
            Issue.record("no error")
        } catch {
            // Offsets count from the event code: code, length, subevent, Num_Reports, then Event_Type at 4.
            #expect(error == .invalid(what: "Event_Type", offset: 4, value: 9))
            #expect(error.description == "invalid Event_Type at byte 4: 0x9")
        }
    }
}
