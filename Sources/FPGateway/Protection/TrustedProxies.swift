import Foundation
import HTTPTypes

/// Reverse proxies whose word about the client is taken (`--trusted-proxy`):
/// behind one, every connection comes from the proxy's address, and the
/// per-client limits (login throttle, live-view slots) must see the real
/// client instead. `Forwarded` (RFC 7239) or `X-Forwarded-For` is believed
/// only from a trusted peer; anyone else could name any address there.
struct TrustedProxies: Sendable {
    struct Network: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixBits: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var left = prefixBits
            for (a, b) in zip(address, bytes) where left > 0 {
                let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
                if a & mask != b & mask { return false }
                left -= 8
            }
            return true
        }
    }

    let networks: [Network]

    /// From `ADDRESS` or `ADDRESS/BITS` (IPv4 or IPv6); a bad one names itself.
    init(_ specs: [String]) throws {
        networks = try specs.map { spec in
            let parts = spec.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(parts[0]) else {
                throw GatewaySetupError("--trusted-proxy \(spec): not an IP address or network (a.b.c.d, a.b.c.d/n, x::y/n)")
            }
            var bits = bytes.count * 8
            if parts.count == 2 {
                guard let n = Int(parts[1]), (0...bits).contains(n) else {
                    throw GatewaySetupError("--trusted-proxy \(spec): the prefix length must be 0–\(bits)")
                }
                bits = n
            }
            return Network(bytes: bytes, prefixBits: bits)
        }
    }

    func isTrusted(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = Self.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client a request is from: the peer, or, when the peer is a trusted
    /// proxy, the nearest address in its forwarding chain that is not one.
    func client(peer: String, headers: HTTPFields) -> String {
        guard isTrusted(peer) else { return peer }
        let chain = Self.forwardedChain(headers)
        return chain.reversed().first { !isTrusted($0) } ?? chain.first ?? peer
    }

    /// The `for=` addresses of `Forwarded`, else `X-Forwarded-For`'s, client first.
    static func forwardedChain(_ headers: HTTPFields) -> [String] {
        let forwarded = headers[values: HTTPField.Name("Forwarded")!]
        if !forwarded.isEmpty {
            return forwarded.flatMap { $0.split(separator: ",") }.compactMap { element -> String? in
                for pair in element.split(separator: ";") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard kv.count == 2, kv[0].lowercased() == "for" else { continue }
                    return address(fromNode: kv[1])
                }
                return nil
            }
        }
        return headers[values: HTTPField.Name("X-Forwarded-For")!].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { bytes($0) != nil }
    }

    /// `192.0.2.43`, `"[2001:db8::17]:4711"` → the address alone; nil for obfuscated or unknown nodes.
    static func address(fromNode node: String) -> String? {
        var text = node.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            text = String(text[text.index(after: text.startIndex)..<end])
        } else if text.filter({ $0 == ":" }).count == 1 {
            text = String(text.split(separator: ":")[0])
        }
        return bytes(text) == nil ? nil : text
    }

    /// An address's bytes (4 or 16), nil if it is none.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
