import Foundation

/// base64url without padding (JWTs: the gateway signs with it, the client reads claims) (RFC 7515 §2), decoded strictly: one text per
/// byte string. Lenient decoders accept unused trailing bits, so a token's
/// signature could be changed in its last character and still verify.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        // Byte by byte: Foundation's `replacingOccurrences` costs more than the encoding itself.
        var bytes = Array(data.base64EncodedString().utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for i in bytes.indices {
            if bytes[i] == UInt8(ascii: "+") { bytes[i] = UInt8(ascii: "-") } else if bytes[i] == UInt8(ascii: "/") { bytes[i] = UInt8(ascii: "_") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// nil unless `text` is exactly what `encode` writes for some bytes:
    /// no padding, no white space, no other alphabet, no stray trailing bits.
    public static func decode(_ text: Substring) -> Data? {
        guard text.utf8.count % 4 != 1,
              text.utf8.allSatisfy({ isAlphabet($0) })
        else { return nil }
        var standard = text.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        guard let data = Data(base64Encoded: Data(standard)), encode(data) == text else { return nil }
        return data
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
