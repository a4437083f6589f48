import Foundation

/// base64url without padding (JWTs: the gateway signs with it, the client reads claims) (RFC 7515 §2), decoded strictly: one text per
/// byte string. Lenient decoders accept unused trailing bits, so a token's
/// signature could be changed in its last character and still verify.
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// nil unless `text` is exactly what `encode` writes for some bytes:
    /// no padding, no white space, no other alphabet, no stray trailing bits.
    public static func decode(_ text: Substring) -> Data? {
        guard text.utf8.count % 4 != 1,
              text.utf8.allSatisfy({ isAlphabet($0) })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        guard let data = Data(base64Encoded: standard), encode(data) == text else { return nil }
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
