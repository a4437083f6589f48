import FPHex

/// A 48-bit Bluetooth device address, stored most significant byte first.
package struct BDAddress: Sendable, Hashable, CustomStringConvertible {
    package let bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// From the 6 little-endian bytes an HCI event carries.
    @inlinable init(littleEndian s: ArraySlice<UInt8>) {
        let i = s.startIndex
        bytes = (s[i + 5], s[i + 4], s[i + 3], s[i + 2], s[i + 1], s[i])
    }

    package init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8, _ b5: UInt8) {
        bytes = (b0, b1, b2, b3, b4, b5)
    }

    package static func == (l: BDAddress, r: BDAddress) -> Bool {
        l.bytes.0 == r.bytes.0 && l.bytes.1 == r.bytes.1 && l.bytes.2 == r.bytes.2
            && l.bytes.3 == r.bytes.3 && l.bytes.4 == r.bytes.4 && l.bytes.5 == r.bytes.5
    }

    /// The six bytes in one word (the low 48 bits), hashed at once: six
    /// one-byte combines were a third of a replay's template lookups.
    package var packed: UInt64 {
        UInt64(bytes.0) << 40 | UInt64(bytes.1) << 32 | UInt64(bytes.2) << 24
            | UInt64(bytes.3) << 16 | UInt64(bytes.4) << 8 | UInt64(bytes.5)
    }

    package func hash(into h: inout Hasher) { h.combine(packed) }

    /// `AA:BB:CC:DD:EE:FF`, upper case (the form BlueZ and the old apps print).
    package var description: String {
        // Built in one small buffer: this runs once per report on the hot path.
        let all = [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5]
        return String(unsafeUninitializedCapacity: 17) { out in
            var i = 0
            for (n, b) in all.enumerated() {
                if n > 0 { out[i] = UInt8(ascii: ":"); i += 1 }
                out[i] = Hex.upperDigits[Int(b >> 4)]
                out[i + 1] = Hex.upperDigits[Int(b & 0x0F)]
                i += 2
            }
            return i
        }
    }
}

/// The address types of LE advertising reports (Core spec Vol 4 Part E 7.7.65.2/.13).
package enum AddressType: UInt8, Sendable, CaseIterable {
    case publicDevice = 0x00
    case randomDevice = 0x01
    case publicIdentity = 0x02  // resolved from an RPA by the controller
    case randomIdentity = 0x03
    case anonymous = 0xFF  // extended reports only: no address sent

    /// The stable string stored in documents.
    package var name: String {
        switch self {
        case .publicDevice: "public"
        case .randomDevice: "random"
        case .publicIdentity: "public-identity"
        case .randomIdentity: "random-identity"
        case .anonymous: "anonymous"
        }
    }
}
