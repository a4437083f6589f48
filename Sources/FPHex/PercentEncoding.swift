/// Percent-encoding of URL path segments and query values (RFC 3986 §2.1):
/// every byte of the UTF-8 text but the unreserved ALPHA / DIGIT / "-._~"
/// becomes `%XX`. On bytes, without Foundation: Foundation's version goes
/// through CFString and costs every sync request a slow path.
package enum PercentEncoding {
    package static func encode(_ text: String) -> String {
        let utf8 = Array(text.utf8)
        if utf8.allSatisfy(isUnreserved) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), Hex.upperDigits[Int(byte >> 4)], Hex.upperDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
