import FPHex
import Foundation
import Testing

/// The byte-based encoder of URL path segments and query values, against
/// RFC 3986's unreserved set and Foundation's own encoding of the same text.
@Suite struct PercentEncodingTests {
    @Test func unreservedTextIsLeftAsItIs() {
        let text = "abcXYZ019-._~"
        #expect(PercentEncoding.encode(text) == text)
        #expect(PercentEncoding.encode("") == "")
    }

    @Test func everyOtherByteIsEncodedInUpperCaseHex() {
        #expect(PercentEncoding.encode("a/b") == "a%2Fb")
        #expect(PercentEncoding.encode("+%&?#= ") == "%2B%25%26%3F%23%3D%20")
        #expect(PercentEncoding.encode("_local/x") == "_local%2Fx")
        // UTF-8 bytes, NFC and NFD alike, never the letters themselves.
        #expect(PercentEncoding.encode("é") == "%C3%A9")
        #expect(PercentEncoding.encode("e\u{301}") == "e%CC%81")
        #expect(PercentEncoding.encode("😀") == "%F0%9F%98%80")
    }

    @Test func agreesWithFoundationOnTheUnreservedSet() {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        var samples = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["doc id/with slash", "ü€𝄞", "[\"a\",\"b\"]", "2-abc", "{\"seq\":12}"]
        for text in samples {
            #expect(PercentEncoding.encode(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved), "\(text.debugDescription)")
        }
    }
}
