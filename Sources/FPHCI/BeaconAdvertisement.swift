import FPHex

/// Advertising data for this host as a beacon: the byte layouts `BeaconFrame`
/// decodes, written the other way (pure: no I/O). Both fit the 31 bytes of a
/// legacy advertisement.
package enum BeaconAdvertisement {
    /// LE General Discoverable, BR/EDR not supported: what beacons send.
    static let flags: [UInt8] = [0x02, AdvertisingData.ADType.flags, 0x06]

    /// iBeacon: flags, then manufacturer data of Apple (0x004C, little-endian on
    /// air): type 0x02, length 0x15, uuid, major and minor big-endian, measured power.
    package static func iBeacon(uuid: [UInt8], major: UInt16, minor: UInt16, measuredPower: Int8) -> [UInt8] {
        precondition(uuid.count == 16, "an iBeacon UUID is 16 bytes")
        let company = BeaconFrame.appleCompany
        let body: [UInt8] = [AdvertisingData.ADType.manufacturer, UInt8(company & 0xFF), UInt8(company >> 8), 0x02, 0x15]
            + uuid + be16(major) + be16(minor) + [UInt8(bitPattern: measuredPower)]
        return flags + [UInt8(body.count)] + body
    }

    /// Eddystone-UID: flags, the 16-bit service UUID list (FEAA), then its
    /// service data: frame 0x00, tx power at 0 m, namespace, instance, 2 reserved bytes.
    package static func eddystoneUID(namespace: [UInt8], instance: [UInt8], txPowerAt0m: Int8) -> [UInt8] {
        precondition(namespace.count == 10 && instance.count == 6, "an Eddystone-UID is a 10-byte namespace and a 6-byte instance")
        let service: [UInt8] = [0xAA, 0xFE]  // FEAA, little-endian
        let services: [UInt8] = [0x03, AdvertisingData.ADType.complete16] + service
        let body: [UInt8] = [AdvertisingData.ADType.serviceData16] + service + [0x00, UInt8(bitPattern: txPowerAt0m)]
            + namespace + instance + [0x00, 0x00]
        return flags + services + [UInt8(body.count)] + body
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
}

/// Beacon identities typed on a command line, as bytes.
package enum BeaconIdentityText {
    /// `FB0B57A2-8228-44CD-913A-94A122BA1206` (dashes optional, any case) → 16 bytes.
    package static func uuid(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != "-" }
        // Dashes only where the canonical form has them (8-4-4-4-12), or none at all.
        if digits.count != text.count {
            let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard groups == [8, 4, 4, 4, 12] else { return nil }
        }
        return hex(digits, bytes: 16)
    }

    /// Exactly `bytes` bytes of hex (an optional `0x` prefix), any case.
    package static func hex(_ text: String, bytes: Int) -> [UInt8]? {
        var t = Substring(text)
        if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
        guard t.count == bytes * 2, let b = Hex.bytes(String(t)) else { return nil }
        return b
    }
}
