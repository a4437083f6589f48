/// The LE advertising commands `fprint advertise` sends (Core spec Vol 4
/// Part E 7.8): legacy ones first, the extended set only for controllers
/// that refuse the legacy ones (Command Disallowed once in extended mode).
extension HCICommand {
    package enum AdvertisingOpcode {
        package static let setRandomAddress: UInt16 = 0x2005
        package static let setParameters: UInt16 = 0x2006
        package static let setData: UInt16 = 0x2008
        package static let setEnable: UInt16 = 0x200A
        package static let setSetRandomAddress: UInt16 = 0x2035
        package static let setExtendedParameters: UInt16 = 0x2036
        package static let setExtendedData: UInt16 = 0x2037
        package static let setExtendedEnable: UInt16 = 0x2039
        package static let readNumberOfSets: UInt16 = 0x203B
        package static let removeSet: UInt16 = 0x203C
    }

    static let advertisingNames: [UInt16: String] = [
        AdvertisingOpcode.setRandomAddress: "LE Set Random Address",
        AdvertisingOpcode.setParameters: "LE Set Advertising Parameters",
        AdvertisingOpcode.setData: "LE Set Advertising Data",
        AdvertisingOpcode.setEnable: "LE Set Advertising Enable",
        AdvertisingOpcode.setSetRandomAddress: "LE Set Advertising Set Random Address",
        AdvertisingOpcode.setExtendedParameters: "LE Set Extended Advertising Parameters",
        AdvertisingOpcode.setExtendedData: "LE Set Extended Advertising Data",
        AdvertisingOpcode.setExtendedEnable: "LE Set Extended Advertising Enable",
        AdvertisingOpcode.readNumberOfSets: "LE Read Number of Supported Advertising Sets",
        AdvertisingOpcode.removeSet: "LE Remove Advertising Set",
    ]

    /// How this host advertises: non-connectable, non-scannable (ADV_NONCONN_IND)
    /// on all three primary channels, from its public or a random address.
    package struct AdvertisingParameters: Sendable, Equatable {
        /// In 0.625 ms units (0x0020...0x4000: 20 ms to 10.24 s).
        package var interval: UInt16
        package var randomAddress: Bool
        package init(interval: UInt16, randomAddress: Bool) {
            self.interval = interval
            self.randomAddress = randomAddress
        }

        /// The legal range of a non-connectable advertising interval.
        package static let milliseconds: ClosedRange<Int> = 20...10240

        /// Whole milliseconds → 0.625 ms units (rounded to nearest); nil outside 20...10240 ms.
        package static func units(milliseconds ms: Int) -> UInt16? {
            guard Self.milliseconds.contains(ms) else { return nil }
            return UInt16((ms * 8 + 2) / 5)
        }
    }

    package static func setAdvertisingParameters(_ p: AdvertisingParameters) -> HCICommand {
        HCICommand(AdvertisingOpcode.setParameters,
                   le16(p.interval) + le16(p.interval)
                   + [0x03,  // ADV_NONCONN_IND
                      p.randomAddress ? 0x01 : 0x00,  // own address type
                      0x00, 0, 0, 0, 0, 0, 0,  // peer address (unused for this type)
                      0x07,  // channels 37, 38, 39
                      0x00])  // no filter policy
    }

    /// The data, zero-padded to the command's fixed 31 bytes.
    package static func setAdvertisingData(_ data: [UInt8]) -> HCICommand {
        HCICommand(AdvertisingOpcode.setData, [UInt8(data.count)] + data + [UInt8](repeating: 0, count: max(0, 31 - data.count)))
    }

    package static func setAdvertisingEnable(_ on: Bool) -> HCICommand {
        HCICommand(AdvertisingOpcode.setEnable, [on ? 1 : 0])
    }

    /// `address` as written (most significant byte first); sent little-endian.
    package static func setRandomAddress(_ address: BDAddress) -> HCICommand {
        HCICommand(AdvertisingOpcode.setRandomAddress, address.littleEndianBytes)
    }

    /// One advertising set sending legacy ADV_NONCONN_IND PDUs, so scanners
    /// without extended scanning hear it too.
    package static func setExtendedAdvertisingParameters(handle: UInt8, _ p: AdvertisingParameters) -> HCICommand {
        let interval = le16(p.interval) + [0x00]  // 24-bit intervals
        return HCICommand(AdvertisingOpcode.setExtendedParameters,
                          [handle, 0x10, 0x00]  // event properties: legacy PDU, not connectable/scannable
                          + interval + interval
                          + [0x07, p.randomAddress ? 0x01 : 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x00,
                             0x7F,  // tx power: no preference
                             0x01, 0x00, 0x01,  // primary PHY 1M, max skip 0, secondary PHY 1M
                             0x00, 0x00])  // SID 0, no scan request notifications
    }

    package static func setExtendedAdvertisingData(handle: UInt8, _ data: [UInt8]) -> HCICommand {
        HCICommand(AdvertisingOpcode.setExtendedData, [handle, 0x03, 0x01, UInt8(data.count)] + data)  // complete, no fragmenting
    }

    package static func setExtendedAdvertisingEnable(handle: UInt8, _ on: Bool) -> HCICommand {
        HCICommand(AdvertisingOpcode.setExtendedEnable, [on ? 1 : 0, 0x01, handle, 0x00, 0x00, 0x00])  // no duration, no event limit
    }

    package static func setAdvertisingSetRandomAddress(handle: UInt8, _ address: BDAddress) -> HCICommand {
        HCICommand(AdvertisingOpcode.setSetRandomAddress, [handle] + address.littleEndianBytes)
    }

    package static func removeAdvertisingSet(handle: UInt8) -> HCICommand {
        HCICommand(AdvertisingOpcode.removeSet, [handle])
    }
}

extension BDAddress {
    /// The six bytes as an HCI command carries them (least significant first).
    package var littleEndianBytes: [UInt8] { [bytes.5, bytes.4, bytes.3, bytes.2, bytes.1, bytes.0] }

    /// `C1:22:33:44:55:66` (any case) → the address; nil for anything else.
    package init?(text: some StringProtocol) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var b: [UInt8] = []
        for p in parts {
            guard p.count == 2, let v = UInt8(p, radix: 16) else { return nil }
            b.append(v)
        }
        self.init(b[0], b[1], b[2], b[3], b[4], b[5])
    }

    /// A non-resolvable private address (two top bits 00, neither all zeros nor
    /// all ones in the rest) from 46 bits of `random`: one no one can link to
    /// the next, as a phone's privacy address.
    package static func nonResolvablePrivate(_ random: UInt64) -> BDAddress {
        var bits = random & 0x3FFF_FFFF_FFFF
        if bits == 0 || bits == 0x3FFF_FFFF_FFFF { bits = 1 }
        return BDAddress(UInt8(bits >> 40), UInt8(bits >> 32 & 0xFF), UInt8(bits >> 24 & 0xFF),
                         UInt8(bits >> 16 & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits & 0xFF))
    }
}
