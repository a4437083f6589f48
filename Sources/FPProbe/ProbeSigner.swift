import Crypto
import FPCore
import Foundation

/// Signs probe results with the server's Ed25519 key. The private key is
/// derived from the gateway's secret (HKDF-SHA256 under a label of its own),
/// so every start signs with the same key and nothing new is stored; a new
/// secret is a new key; and a probe signature is never a token signature.
/// Anyone holding the public key (`ProbeKey`) checks a result offline.
public struct ProbeSigner: Sendable {
    /// The derivation's label, and the prefix of every signed message.
    static let label = "fprint probe result ed25519 v1"
    let privateKey: Curve25519.Signing.PrivateKey
    public let publicKey: ProbeKey

    public init(gatewaySecret: Data) {
        let seed = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: gatewaySecret), info: Data(Self.label.utf8),
                                          outputByteCount: 32)
        // A 32-byte seed is always a valid key.
        privateKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: seed.withUnsafeBytes { Data($0) })
        publicKey = ProbeKey(raw: privateKey.publicKey.rawRepresentation)!
    }

    /// The bytes a signature covers: the label, a zero byte, the result's canonical JSON.
    static func message(_ result: JSONValue) -> Data {
        Data(label.utf8) + [0] + CanonicalJSON.data(result)
    }

    /// `{"alg": "ed25519", "key": …, "result": …, "signature": …}`: the key names the signer.
    public func sign(_ result: JSONValue) throws -> JSONValue {
        let signature = try privateKey.signature(for: Self.message(result))
        return ["alg": .string(ProbeKey.algorithm), "key": .string(publicKey.base64url), "result": result,
                "signature": .string(Base64URL.encode(signature))]
    }
}
