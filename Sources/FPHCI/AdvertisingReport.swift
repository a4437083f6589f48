/// How an advertisement was sent: a legacy PDU type or the extended event-type bits.
package enum AdvertisingEventType: Sendable, Equatable {
    case legacy(LegacyPDU)
    /// Extended advertising (non-legacy PDUs), with its Event_Type bits (bit 15 masked off).
    case extended(UInt16)

    package enum LegacyPDU: UInt8, Sendable {
        case advInd = 0, advDirectInd = 1, advScanInd = 2, advNonconnInd = 3, scanRsp = 4
        package var name: String {
            switch self {
            case .advInd: "ADV_IND"
            case .advDirectInd: "ADV_DIRECT_IND"
            case .advScanInd: "ADV_SCAN_IND"
            case .advNonconnInd: "ADV_NONCONN_IND"
            case .scanRsp: "SCAN_RSP"
            }
        }
    }

    /// Extended-report Event_Type bits (Core spec Vol 4 Part E 7.7.65.13).
    package enum Bits {
        package static let connectable: UInt16 = 1 << 0
        package static let scannable: UInt16 = 1 << 1
        package static let directed: UInt16 = 1 << 2
        package static let scanResponse: UInt16 = 1 << 3
        package static let legacy: UInt16 = 1 << 4
        /// Bits 5–6: 0 complete, 1 incomplete (more to come), 2 incomplete (truncated).
        package static let dataStatusShift: UInt16 = 5
        /// Bits 7–14 are reserved; bit 15 is set by some Broadcom controllers and must be ignored.
        package static let defined: UInt16 = 0x007F
    }

    /// Maps extended Event_Type bits to the legacy PDU when the legacy bit is set
    /// (the five combinations the spec allows), else keeps the bits.
    package init(extendedBits raw: UInt16) {
        let bits = raw & Bits.defined
        if bits & Bits.legacy != 0 {
            switch bits & 0x0F {
            case 0b0011: self = .legacy(.advInd)
            case 0b0101: self = .legacy(.advDirectInd)
            case 0b0010: self = .legacy(.advScanInd)
            case 0b0000: self = .legacy(.advNonconnInd)
            case 0b1011, 0b1010: self = .legacy(.scanRsp)
            default: self = .extended(bits)
            }
        } else {
            self = .extended(bits)
        }
    }

    /// The stable string stored in documents: `ADV_IND`…, or `EXT` plus the set bits
    /// (`EXT_CONN_SCAN`, `EXT_NONCONN`, `EXT_SCAN_RSP`, `_INCOMPLETE`, `_TRUNCATED`).
    package var name: String {
        switch self {
        case .legacy(let p): return p.name
        case .extended(let bits):
            var parts = ["EXT"]
            if bits & Bits.connectable != 0 { parts.append("CONN") }
            if bits & Bits.scannable != 0 { parts.append("SCAN") }
            if bits & Bits.directed != 0 { parts.append("DIRECT") }
            if bits & (Bits.connectable | Bits.scannable | Bits.directed) == 0 { parts.append("NONCONN") }
            if bits & Bits.scanResponse != 0 { parts.append("SCAN_RSP") }
            switch (bits >> Bits.dataStatusShift) & 0x3 {
            case 1: parts.append("INCOMPLETE")
            case 2: parts.append("TRUNCATED")
            default: break
            }
            return parts.joined(separator: "_")
        }
    }
}

/// One advertising report: who sent what, how loud. `data` slices the event buffer.
package struct AdvertisingReport: Sendable {
    package var eventType: AdvertisingEventType
    package var addressType: AddressType
    package var address: BDAddress
    /// dBm, nil when the controller said "not available" (127).
    package var rssi: Int8?
    /// Extended reports: the advertiser's TX power in dBm, nil when not available (127).
    package var txPower: Int8?
    /// Extended reports: primary/secondary PHY and advertising set id.
    package var primaryPHY: UInt8?
    package var secondaryPHY: UInt8?
    package var advertisingSID: UInt8?
    /// The advertising data (AD structures), undecoded.
    package var data: ArraySlice<UInt8>
}

/// Reads one or more reports out of an LE Meta event.
package enum AdvertisingReports {
    package static let maxReports = 0x19

    /// Decodes an LE Advertising Report or LE Extended Advertising Report
    /// from an LE Meta event; any other event or subevent yields `[]`.
    /// Throws on malformed bytes: the caller counts and skips the event.
    package static func parse(_ event: HCIEvent) throws(HCIParseError) -> [AdvertisingReport] {
        guard event.code == HCIEvent.leMeta else { return [] }
        // Offsets are relative to the event code byte (+2 = after code and length).
        var c = ByteCursor(event.parameters, origin: event.parameters.startIndex - 2)
        let subevent = try c.u8("LE Meta subevent code")
        switch subevent {
        case LESubevent.advertisingReport: return try parseReports(&c, extended: false)
        case LESubevent.extendedAdvertisingReport: return try parseReports(&c, extended: true)
        default: return []
        }
    }

    /// Decodes an H4 frame (04 3E …); `[]` for other packets.
    package static func parse(h4 bytes: ArraySlice<UInt8>) throws(HCIParseError) -> [AdvertisingReport] {
        guard bytes.first == H4Type.event.rawValue else { return [] }
        return try parse(HCIEvent(h4: bytes))
    }

    static func parseReports(_ c: inout ByteCursor, extended: Bool) throws(HCIParseError) -> [AdvertisingReport] {
        let countOffset = c.offset
        let count = Int(try c.u8("Num_Reports"))
        guard (1...maxReports).contains(count) else { throw .invalid(what: "Num_Reports", offset: countOffset, value: count) }
        var reports: [AdvertisingReport] = []
        reports.reserveCapacity(count)
        for _ in 0..<count {
            reports.append(extended ? try extendedReport(&c) : try legacyReport(&c))
        }
        if c.remaining > 0 { throw .trailing(what: "advertising reports", offset: c.offset, count: c.remaining) }
        return reports
    }

    /// One legacy report (7.7.65.2), read sequentially as Linux and controllers lay it out:
    /// Event_Type, Address_Type, Address, Data_Length, Data, RSSI.
    static func legacyReport(_ c: inout ByteCursor) throws(HCIParseError) -> AdvertisingReport {
        let typeOffset = c.offset
        let rawType = try c.u8("Event_Type")
        guard let pdu = AdvertisingEventType.LegacyPDU(rawValue: rawType) else {
            throw .invalid(what: "Event_Type", offset: typeOffset, value: Int(rawType))
        }
        let addressType = try addressTypeField(&c, allowAnonymous: false)
        let address = BDAddress(littleEndian: try c.take(6, "Address"))
        let lengthOffset = c.offset
        let length = Int(try c.u8("Data_Length"))
        guard length <= 31 else { throw .invalid(what: "Data_Length", offset: lengthOffset, value: length) }
        let data = try c.take(length, "Data")
        let rssi = Int8(bitPattern: try c.u8("RSSI"))
        return AdvertisingReport(
            eventType: .legacy(pdu), addressType: addressType, address: address,
            rssi: rssi == 127 ? nil : rssi, txPower: nil, data: data)
    }

    /// One extended report (7.7.65.13): 24 fixed bytes, then Data.
    static func extendedReport(_ c: inout ByteCursor) throws(HCIParseError) -> AdvertisingReport {
        let bits = try c.u16le("Event_Type")
        let addressType = try addressTypeField(&c, allowAnonymous: true)
        let address = BDAddress(littleEndian: try c.take(6, "Address"))
        let primary = try c.u8("Primary_PHY")
        let secondary = try c.u8("Secondary_PHY")
        let sid = try c.u8("Advertising_SID")
        let tx = Int8(bitPattern: try c.u8("TX_Power"))
        let rssi = Int8(bitPattern: try c.u8("RSSI"))
        _ = try c.u16le("Periodic_Advertising_Interval")
        _ = try c.u8("Direct_Address_Type")
        _ = try c.take(6, "Direct_Address")
        let length = Int(try c.u8("Data_Length"))
        let data = try c.take(length, "Data")
        return AdvertisingReport(
            eventType: AdvertisingEventType(extendedBits: bits), addressType: addressType, address: address,
            rssi: rssi == 127 ? nil : rssi, txPower: tx == 127 ? nil : tx,
            primaryPHY: primary, secondaryPHY: secondary, advertisingSID: sid, data: data)
    }

    static func addressTypeField(_ c: inout ByteCursor, allowAnonymous: Bool) throws(HCIParseError) -> AddressType {
        let offset = c.offset
        let raw = try c.u8("Address_Type")
        guard let t = AddressType(rawValue: raw), allowAnonymous || t != .anonymous else {
            throw .invalid(what: "Address_Type", offset: offset, value: Int(raw))
        }
        return t
    }
}
