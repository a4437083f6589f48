import FPCore
import FPProbe
import Foundation
import Testing

@Suite struct ProbeSignerTests {
    let signer = ProbeSigner(gatewaySecret: Data("0123456789abcdef0123456789abcdef".utf8))
    let result: JSONValue = ["phase": "udp", "lossUpPercent": 5.25, "rttMs": ["median": 80.125, "count": 200], "user": "alice"]

    @Test func signedResultVerifiesAfterATextRoundTrip() throws {
        let text = CanonicalJSON.data(signer.sign(result))
        #expect(signer.verify(text: text))
        #expect(signer.verify(try CanonicalJSON.parse(text)))
    }

    /// Every single byte of the result changed (to another digit or letter) fails verification.
    @Test func oneChangedByteFailsVerification() throws {
        let text = Array(CanonicalJSON.data(signer.sign(result)))
        let string = String(decoding: text, as: UTF8.self)
        // The result's bytes: from `"result":` to `,"signature"` (canonical order sorts the keys).
        let start = try #require(string.range(of: "\"result\":")).upperBound.utf16Offset(in: string)
        let end = try #require(string.range(of: ",\"signature\"")).lowerBound.utf16Offset(in: string)
        var checked = 0
        for i in start..<end {
            var edited = text
            let b = edited[i]
            // Digits and letters change into others of their kind, so the text still parses.
            if (0x30...0x38).contains(b) || (0x61...0x79).contains(b) { edited[i] = b + 1 } else { continue }
            #expect(!signer.verify(text: Data(edited)), "byte \(i) changed still verified")
            checked += 1
        }
        #expect(checked > 40)
    }

    @Test func anotherServersKeyOrNoSignatureFails() {
        let other = ProbeSigner(gatewaySecret: Data("another secret of thirty-two chars!".utf8))
        #expect(!other.verify(signer.sign(result)))
        #expect(!signer.verify(["result": result]))
        #expect(!signer.verify(text: Data("not json".utf8)))
    }
}
