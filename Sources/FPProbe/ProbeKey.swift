import Crypto
import FPCore
import Foundation

/// A probe server's public key (Ed25519): what a user trusts with `fprint
/// probe --trust-server`, what a signed result names as its signer, and what
/// `--verify` checks signatures with, offline.
public struct ProbeKey: Sendable, Hashable {
    public static let algorithm = "ed25519"
    /// The key's 32 bytes.
    public let raw: Data

    public init?(raw: Data) {
        guard raw.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else { return nil }
        self.raw = raw
    }

    public init?(base64url text: String) {
        guard let raw = Base64URL.decode(Substring(text)) else { return nil }
        self.init(raw: raw)
    }

    public var base64url: String { Base64URL.encode(raw) }

    /// `SHA256:` and the unpadded base64 of the key's SHA-256, as `ssh-keygen -l`
    /// shows keys: what a user compares with the gateway's operator, out of band.
    public var fingerprint: String {
        var text = Data(SHA256.hash(data: raw)).base64EncodedString()
        while text.last == "=" { text.removeLast() }
        return "SHA256:" + text
    }

    func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// What the gateway serves at `/config/probe-key.json`.
    public var json: JSONValue {
        ["alg": .string(Self.algorithm), "key": .string(base64url), "fingerprint": .string(fingerprint)]
    }

    /// Reads `{"alg": "ed25519", "key"[, "fingerprint"]}`; a fingerprint, when
    /// given, must be the key's.
    public init(json: JSONValue) throws(ProbeKeyError) {
        guard json.objectValue != nil else { throw ProbeKeyError("not a JSON object") }
        guard let alg = json["alg"]?.stringValue else { throw ProbeKeyError("no \"alg\"") }
        guard alg == Self.algorithm else { throw ProbeKeyError("alg \"\(alg)\" is not \(Self.algorithm)") }
        guard let text = json["key"]?.stringValue, let key = ProbeKey(base64url: text) else {
            throw ProbeKeyError("\"key\" is not an Ed25519 public key in base64url")
        }
        if let given = json["fingerprint"], given.stringValue != key.fingerprint {
            throw ProbeKeyError("\"fingerprint\" is not the key's")
        }
        self = key
    }
}

/// Why a key could not be read: one phrase, for a message that names where.
public struct ProbeKeyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
