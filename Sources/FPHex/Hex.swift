/// Hex text of bytes and back: the one encoder every module uses (revision
/// ids, tokens, BSSIDs, HCI dumps). A module of its own, without Foundation,
/// so the dependency-free HCI parsers and FPCore can both use it.
package enum Hex {
    package static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)
    package static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Two hex digits of one byte, upper case unless asked otherwise
    /// (HCI opcodes and status codes are printed upper case).
    package static func byte(_ b: UInt8, uppercase: Bool = true) -> String {
        string(CollectionOfOne(b), uppercase: uppercase)
    }

    /// Hex of a byte sequence, no separators; lower case unless asked otherwise.
    @inlinable
    package static func string<S: Sequence<UInt8>>(_ bytes: S, uppercase: Bool = false) -> String {
        // Every BLE report's raw data goes through here: work on plain buffers.
        let digits = uppercase ? upperDigits : lowerDigits
        return bytes.withContiguousStorageIfAvailable { write($0, digits) }
            ?? Array(bytes).withUnsafeBufferPointer { write($0, digits) }
    }

    @usableFromInline
    static func write(_ bytes: UnsafeBufferPointer<UInt8>, _ digits: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            digits.withUnsafeBufferPointer { digits in
                var i = 0
                for b in bytes {
                    out[i] = digits[Int(b >> 4)]
                    out[i + 1] = digits[Int(b & 0x0F)]
                    i += 2
                }
                return i
            }
        }
    }

    /// Parses hex digits (white space ignored); nil on any other character or an odd count.
    package static func bytes<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
            default: return nil
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return high == nil ? out : nil
    }
}
