import FPCore
import FPProbe
import Foundation
import Testing

/// Ed25519 signatures of probe results, checked offline with the server's public key.
@Suite struct ProbeSignerTests {
    let signer = ProbeSigner(gatewaySecret: Data("0123456789abcdef0123456789abcdef".utf8))
    let result: JSONValue = ["phase": "udp", "lossUpPercent": 5.25, "rttMs": ["median": 80.125, "count": 200], "user": "alice"]

    func check(_ text: Data, trusted: [ProbeKey]) throws -> ProbeSignatureCheck {
        ProbeSignatureCheck(try CanonicalJSON.parse(text), trusted: trusted)
    }

    @Test func aSignedResultVerifiesWithTheServersKeyAfterATextRoundTrip() throws {
        let signed = try signer.sign(result)
        #expect(signed["alg"]?.stringValue == "ed25519")
        #expect(signed["key"]?.stringValue == signer.publicKey.base64url)
        #expect(try check(CanonicalJSON.data(signed), trusted: [signer.publicKey]) == .valid(signer.publicKey))
    }

    /// The same secret gives the same key at every start (nothing is stored), and this
    /// one exactly: HKDF-SHA256 of the secret under "fprint probe result ed25519 v1" as the
    /// Ed25519 seed (checked once with Python's `cryptography`). A change here would make
    /// every key users trusted useless.
    @Test func theKeyIsDerivedFromTheSecretDeterministically() {
        let again = ProbeSigner(gatewaySecret: Data("0123456789abcdef0123456789abcdef".utf8))
        #expect(again.publicKey == signer.publicKey)
        #expect(signer.publicKey.base64url == "ClhEdT0k-WTAbX_le3Po1UQ58efwpv2-oahtDoCk_44")
        #expect(signer.publicKey.fingerprint == "SHA256:dugoZe9XWNj4cQdIZt96kbnPKdq8w4ED8kPPgRXR7AI")
        let rotated = ProbeSigner(gatewaySecret: Data("0123456789abcdef0123456789abcdeF".utf8))
        #expect(rotated.publicKey != signer.publicKey)
    }

    /// Every single byte of the result changed (to another digit or letter) is caught.
    @Test func oneChangedByteIsAltered() throws {
        let text = Array(CanonicalJSON.data(try signer.sign(result)))
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
            #expect(try check(Data(edited), trusted: [signer.publicKey]) == .altered, "byte \(i) changed still verified")
            checked += 1
        }
        #expect(checked > 40)
    }

    /// Another gateway's genuine signature is not this one's, whatever key it names.
    @Test func anotherServersKeyIsRefused() throws {
        let other = ProbeSigner(gatewaySecret: Data("another secret of thirty-two chars!".utf8))
        let theirs = try other.sign(result)
        #expect(ProbeSignatureCheck(theirs, trusted: [signer.publicKey]) == .untrusted)
        // Naming a trusted key does not make another key's signature its.
        var renamed = theirs
        renamed["key"] = .string(signer.publicKey.base64url)
        #expect(ProbeSignatureCheck(renamed, trusted: [signer.publicKey]) == .altered)
        // Trusting both: each verifies with its own.
        #expect(ProbeSignatureCheck(theirs, trusted: [signer.publicKey, other.publicKey]) == .valid(other.publicKey))
    }

    /// An older gateway's HMAC result (`{result, signature}` alone) is recognised, never taken as valid.
    @Test func anOlderGatewaysHMACIsSharedSecret() throws {
        var old = try signer.sign(result)
        old["alg"] = nil
        old["key"] = nil
        #expect(ProbeSignatureCheck(old, trusted: [signer.publicKey]) == .sharedSecret)
    }

    @Test(arguments: [
        ("no signature", "not {result, signature}"),
        ("unknown alg", "signed with an algorithm fprint does not know"),
        ("short key", "its key is not an Ed25519 public key"),
        ("short signature", "its signature is not an Ed25519 signature"),
    ])
    func malformedSignedBlocksSayWhy(_ edit: String, _ why: String) throws {
        var signed = try signer.sign(result)
        switch edit {
        case "no signature": signed["signature"] = nil
        case "unknown alg": signed["alg"] = "hs256"
        case "short key": signed["key"] = "AAAA"
        default: signed["signature"] = "AAAA"
        }
        #expect(ProbeSignatureCheck(signed, trusted: [signer.publicKey]) == .malformed(why))
    }

    /// What the gateway serves reads back as the same key; a fingerprint that is not the key's is refused.
    @Test func theServedKeyReadsBackAndItsFingerprintMustMatch() throws {
        #expect(try ProbeKey(json: signer.publicKey.json) == signer.publicKey)
        var lying = signer.publicKey.json
        lying["fingerprint"] = .string(ProbeSigner(gatewaySecret: Data("x".utf8)).publicKey.fingerprint)
        #expect(throws: ProbeKeyError.self) { try ProbeKey(json: lying) }
        #expect(throws: ProbeKeyError.self) { try ProbeKey(json: ["alg": "hs256", "key": .string(signer.publicKey.base64url)]) }
        #expect(throws: ProbeKeyError.self) { try ProbeKey(json: "a string") }
    }
}
