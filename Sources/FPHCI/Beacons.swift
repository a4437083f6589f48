import FPHex

/// Beacon identities decoded from advertising data.
package enum BeaconFrame: Sendable, Equatable {
    /// Apple iBeacon: company 0x004C, type 0x02, length 0x15.
    case iBeacon(uuid: String, major: UInt16, minor: UInt16, measuredPower: Int8)
    /// AltBeacon (Radius Networks): code 0xBEAC, 20-byte id (uuid + major + minor by convention).
    case altBeacon(companyID: UInt16, uuid: String, major: UInt16, minor: UInt16, referenceRSSI: Int8)
    /// Eddystone-UID: tx power at 0 m, 10-byte namespace, 6-byte instance.
    case eddystoneUID(txPowerAt0m: Int8, namespace: String, instance: String)
    /// Eddystone-URL with the expanded URL.
    case eddystoneURL(txPowerAt0m: Int8, url: String)
    /// Eddystone-TLM (unencrypted, version 0).
    case eddystoneTLM(batteryMilliVolts: UInt16, temperatureCelsius: Double?, advertisingCount: UInt32, uptimeTenths: UInt32)

    package static let eddystoneService = "FEAA"
    package static let appleCompany: UInt16 = 0x004C

    /// The first beacon found in the advertisement, if any. Malformed beacon
    /// payloads are not beacons (nil), never an error: the report is still valid.
    package static func decode(_ ad: AdvertisingData) -> BeaconFrame? {
        for m in ad.manufacturer {
            if let b = iBeacon(m) ?? altBeacon(m) { return b }
        }
        for s in ad.serviceData where s.uuid == eddystoneService {
            if let b = eddystone(s.payload) { return b }
        }
        return nil
    }

    static func iBeacon(_ m: AdvertisingData.Manufacturer) -> BeaconFrame? {
        let p = m.payload
        guard m.companyID == appleCompany, p.count == 23, p[0] == 0x02, p[1] == 0x15 else { return nil }
        return .iBeacon(
            uuid: UUIDText.canonical(p[2..<18]), major: be16(p, 18), minor: be16(p, 20),
            measuredPower: Int8(bitPattern: p[22]))
    }

    static func altBeacon(_ m: AdvertisingData.Manufacturer) -> BeaconFrame? {
        let p = m.payload
        guard p.count == 24, p[0] == 0xBE, p[1] == 0xAC else { return nil }
        return .altBeacon(
            companyID: m.companyID, uuid: UUIDText.canonical(p[2..<18]), major: be16(p, 18), minor: be16(p, 20),
            referenceRSSI: Int8(bitPattern: p[22]))
    }

    static func eddystone(_ p: [UInt8]) -> BeaconFrame? {
        guard let frame = p.first else { return nil }
        switch frame {
        case 0x00:  // UID: frame, tx, namespace[10], instance[6], (2 reserved, optional)
            guard p.count == 18 || p.count == 20 else { return nil }
            return .eddystoneUID(
                txPowerAt0m: Int8(bitPattern: p[1]), namespace: Hex.string(p[2..<12]), instance: Hex.string(p[12..<18]))
        case 0x10:  // URL: frame, tx, scheme, encoded url
            guard p.count >= 3, p.count <= 20, let url = eddystoneURL(scheme: p[2], encoded: p[3...]) else { return nil }
            return .eddystoneURL(txPowerAt0m: Int8(bitPattern: p[1]), url: url)
        case 0x20:  // TLM v0: frame, version, battery mV, temp 8.8, adv count, uptime (0.1 s)
            guard p.count == 14, p[1] == 0x00 else { return nil }
            let rawTemp = be16(p, 4)
            // 0x8000 means "not supported".
            let temp: Double? = rawTemp == 0x8000 ? nil : Double(Int16(bitPattern: rawTemp)) / 256
            return .eddystoneTLM(
                batteryMilliVolts: be16(p, 2), temperatureCelsius: temp, advertisingCount: be32(p, 6),
                uptimeTenths: be32(p, 10))
        default:
            return nil
        }
    }

    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    static func eddystoneURL(scheme: UInt8, encoded: ArraySlice<UInt8>) -> String? {
        guard Int(scheme) < schemes.count else { return nil }
        var url = schemes[Int(scheme)]
        for b in encoded {
            if Int(b) < expansions.count {
                url += expansions[Int(b)]
            } else if b > 0x20 && b < 0x7F {
                url.append(Character(Unicode.Scalar(b)))
            } else {
                return nil
            }
        }
        return url
    }

    static func be16(_ p: [UInt8], _ i: Int) -> UInt16 { UInt16(p[i]) << 8 | UInt16(p[i + 1]) }
    static func be32(_ p: [UInt8], _ i: Int) -> UInt32 {
        UInt32(p[i]) << 24 | UInt32(p[i + 1]) << 16 | UInt32(p[i + 2]) << 8 | UInt32(p[i + 3])
    }
}
