import Foundation

/// What a beacon is known by: its Bluetooth address, or the identity it
/// advertises (iBeacon uuid/major/minor, Eddystone-UID namespace/instance),
/// which stays the same while a random address rotates.
///
/// Canonical text (`text`, what registries, tables and transmitter ids use):
/// - `DB:D8:0E:71:E0:FD` (upper-case hex, colons)
/// - `ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:55184:8529` (upper-case UUID with hyphens)
/// - `eddystone:edd1ebeac04e5defa017:0123456789ab` (lower-case hex, 10 and 6 bytes)
///
/// `init?(text:)` reads any case, a UUID with or without hyphens and hex with a 0x prefix.
public enum BeaconIdentity: Sendable, Hashable, CustomStringConvertible {
    case mac(String)
    case iBeacon(uuid: String, major: Int, minor: Int)
    case eddystoneUID(namespace: String, instance: String)

    public var text: String {
        switch self {
        case .mac(let m): m
        case let .iBeacon(uuid, major, minor): "ibeacon:\(uuid):\(major):\(minor)"
        case let .eddystoneUID(namespace, instance): "eddystone:\(namespace):\(instance)"
        }
    }

    public var description: String { text }

    /// The advertised identity (not the address) of a decoded frame; nil for
    /// frames that carry none (Eddystone-URL, -TLM). An AltBeacon's 20-byte id
    /// is read as the iBeacon triple it conventionally holds, so a beacon
    /// sending both frames is one beacon.
    public init?(beacon: Beacon) {
        switch beacon.type {
        case "ibeacon", "altbeacon":
            // Once per report in a replay: the numbers are checked as numbers, not printed and read back.
            guard let uuid = beacon.uuid, let major = beacon.major, let minor = beacon.minor,
                  (0...65535).contains(major), (0...65535).contains(minor),
                  let canonical = Self.canonicalUUID(uuid) else { return nil }
            self = .iBeacon(uuid: canonical, major: major, minor: minor)
        case "eddystone-uid":
            guard let ns = beacon.namespace, let inst = beacon.instance,
                  let id = Self.eddystone(namespace: ns, instance: inst) else { return nil }
            self = id
        default:
            return nil
        }
    }

    /// A stored report's `beacon` object (`Beacon`'s keys), read leniently: nil when it holds no identity.
    public init?(json: JSONValue) {
        guard let type = json["type"]?.stringValue else { return nil }
        func int(_ key: String) -> Int? { json[key]?.intValue.map { Int(clamping: $0) } }
        self.init(beacon: Beacon(type: type, uuid: json["uuid"]?.stringValue, major: int("major"), minor: int("minor"),
                                 namespace: json["namespace"]?.stringValue, instance: json["instance"]?.stringValue))
    }

    /// Canonical text back; also a bare MAC in any case, with `-` or no separators.
    public init?(text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        let parts = t.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts.first?.lowercased() {
        case "ibeacon":
            guard parts.count == 4, let id = Self.iBeacon(uuid: parts[1], major: parts[2], minor: parts[3]) else { return nil }
            self = id
        case "eddystone":
            guard parts.count == 3, let id = Self.eddystone(namespace: parts[1], instance: parts[2]) else { return nil }
            self = id
        default:
            guard let mac = Self.mac(t) else { return nil }
            self = .mac(mac)
        }
    }

    /// An iBeacon identity from its three fields as written; nil when any is not one.
    public static func iBeacon(uuid: String, major: String, minor: String) -> BeaconIdentity? {
        guard let u = canonicalUUID(uuid), let ma = Int(major.trimmingCharacters(in: .whitespaces)),
              let mi = Int(minor.trimmingCharacters(in: .whitespaces)),
              (0...65535).contains(ma), (0...65535).contains(mi) else { return nil }
        return .iBeacon(uuid: u, major: ma, minor: mi)
    }

    /// An Eddystone-UID identity (10-byte namespace, 6-byte instance, hex) as written; nil when either is not one.
    public static func eddystone(namespace: String, instance: String) -> BeaconIdentity? {
        guard let ns = hex(namespace, bytes: 10), let inst = hex(instance, bytes: 6) else { return nil }
        return .eddystoneUID(namespace: ns, instance: inst)
    }

    /// "b9407f30f5f8466eaff925556b57fe6d" or the hyphenated form, any case → upper-case with hyphens.
    public static func canonicalUUID(_ text: String) -> String? {
        // The decoder's own form (36 bytes, hyphens in place, hex digits) is
        // read byte by byte: this runs for every report of a replay, and
        // Foundation's UUID parse (sscanf) made it half of `track`'s CPU.
        if let fast = hyphenatedUUID(text) { return fast }
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.count == 32, !t.contains("-") {
            let c = Array(t)
            t = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(c[$0]) }.joined(separator: "-")
        }
        return UUID(uuidString: t)?.uuidString
    }

    /// An 8-4-4-4-12 hex UUID of exactly 36 bytes in upper case (the text
    /// itself when it already is); nil for anything else.
    static func hyphenatedUUID(_ text: String) -> String? {
        guard text.utf8.count == 36 else { return nil }
        var upper = true
        let valid = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for (i, b) in bytes.enumerated() {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard b == UInt8(ascii: "-") else { return false }
                } else if !isHexDigit(b, letters: upperHex) {
                    guard isHexDigit(b, letters: lowerHex) else { return false }
                    upper = false
                }
            }
            return true
        }
        guard valid == true else { return nil }
        return upper ? text : text.uppercased()
    }

    private static let upperHex = UInt8(ascii: "A")...UInt8(ascii: "F"), lowerHex = UInt8(ascii: "a")...UInt8(ascii: "f")

    /// An ASCII digit, or one of `letters`.
    private static func isHexDigit(_ byte: UInt8, letters: ClosedRange<UInt8>) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || letters.contains(byte)
    }

    /// `bytes` bytes of hex, optionally 0x-prefixed → lower-case digits.
    public static func hex(_ text: String, bytes: Int) -> String? {
        // Already lower-case digits (a decoded frame's): the text itself.
        if text.utf8.count == bytes * 2, text.utf8.allSatisfy({ isHexDigit($0, letters: lowerHex) }) { return text }
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        let digits = t.hasPrefix("0x") ? String(t.dropFirst(2)) : t
        guard digits.count == bytes * 2, digits.allSatisfy(\.isHexDigit) else { return nil }
        return digits
    }

    /// "db-d8-0e-71-e0-fd", "dbd80e71e0fd", "db:d8:…" → "DB:D8:0E:71:E0:FD".
    public static func mac(_ text: String) -> String? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" }).map(String.init)
        let bytes: [String]
        if parts.count == 6 {
            bytes = parts
        } else if parts.count == 1, text.count == 12 {
            let c = Array(text)
            bytes = stride(from: 0, to: 12, by: 2).map { String(c[$0..<$0 + 2]) }
        } else {
            return nil
        }
        guard bytes.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else { return nil }
        return bytes.map { $0.uppercased() }.joined(separator: ":")
    }
}

extension BLEScan {
    /// What this report is known by: its decoded frame's identity, else its address.
    public var identity: BeaconIdentity {
        beacon.flatMap(BeaconIdentity.init(beacon:)) ?? .mac(BeaconIdentity.mac(address) ?? address.uppercased())
    }
}
