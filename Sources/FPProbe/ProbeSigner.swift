import Crypto
import FPCore
import Foundation

/// Signs and verifies probe results with an HMAC-SHA256 key of the server's.
/// The key is derived from the gateway's secret under a label of its own, so a
/// probe signature is never a valid token signature or the other way round.
public struct ProbeSigner: Sendable {
    let key: SymmetricKey

    public init(gatewaySecret: Data) {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("fprint probe result v1".utf8), using: SymmetricKey(data: gatewaySecret))
        key = SymmetricKey(data: Data(mac))
    }

    /// The signature of a result: HMAC over its canonical JSON text, base64url.
    public func signature(of result: JSONValue) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: CanonicalJSON.data(result), using: key)))
    }

    /// `{"result": …, "signature": …}`.
    public func sign(_ result: JSONValue) -> JSONValue {
        ["result": result, "signature": .string(signature(of: result))]
    }

    /// Whether a signed result (`{"result", "signature"}`) is as the server wrote it.
    public func verify(_ signed: JSONValue) -> Bool {
        guard let result = signed["result"], result.objectValue != nil,
              let text = signed["signature"]?.stringValue, let mac = Base64URL.decode(Substring(text)) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: CanonicalJSON.data(result), using: key)
    }

    /// Verifies the signed result in a JSON text: false for text that does not parse.
    public func verify(text: Data) -> Bool {
        guard let value = try? CanonicalJSON.parse(text) else { return false }
        return verify(value)
    }
}
