import FPCore
import Foundation

/// What a stored signed result (`signed: {alg, key, result, signature}`) rests
/// on, checked offline against the server keys the user trusts: no network,
/// no token, and nothing a file says about where it came from.
public enum ProbeSignatureCheck: Sendable, Equatable {
    /// Signed by this trusted key, unaltered.
    case valid(ProbeKey)
    /// It names a trusted key, and that key did not sign it as it stands.
    case altered
    /// Signed by a key the user has not trusted.
    case untrusted
    /// An HMAC of an older gateway (`{result, signature}` alone): only the
    /// holder of that gateway's secret could check it.
    case sharedSecret
    /// Not a signed result of any fprint (why).
    case malformed(String)

    public init(_ signed: JSONValue, trusted: [ProbeKey]) {
        guard let result = signed["result"], result.objectValue != nil, let text = signed["signature"]?.stringValue else {
            self = .malformed("not {result, signature}")
            return
        }
        if signed["alg"] == nil && signed["key"] == nil {
            self = .sharedSecret
            return
        }
        guard signed["alg"]?.stringValue == ProbeKey.algorithm else {
            self = .malformed("signed with an algorithm fprint does not know")
            return
        }
        guard let key = signed["key"]?.stringValue.flatMap({ ProbeKey(base64url: $0) }) else {
            self = .malformed("its key is not an Ed25519 public key")
            return
        }
        guard let signature = Base64URL.decode(Substring(text)), signature.count == 64 else {
            self = .malformed("its signature is not an Ed25519 signature")
            return
        }
        guard trusted.contains(key) else {
            self = .untrusted
            return
        }
        self = key.isValidSignature(signature, for: ProbeSigner.message(result)) ? .valid(key) : .altered
    }
}
