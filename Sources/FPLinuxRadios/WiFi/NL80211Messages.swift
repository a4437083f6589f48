import FPCore
import FPHex

/// Generic-netlink / nl80211 message building and parsing, pure (no sockets):
/// layouts from linux/netlink.h, linux/genetlink.h and linux/nl80211.h.
package enum NL80211 {
    // netlink
    static let NLM_F_REQUEST: UInt16 = 0x1, NLM_F_ACK: UInt16 = 0x4, NLM_F_DUMP: UInt16 = 0x300
    static let NLMSG_ERROR: UInt16 = 2, NLMSG_DONE: UInt16 = 3
    // generic netlink controller
    static let GENL_ID_CTRL: UInt16 = 0x10, CTRL_CMD_GETFAMILY: UInt8 = 3
    static let CTRL_ATTR_FAMILY_ID: UInt16 = 1, CTRL_ATTR_FAMILY_NAME: UInt16 = 2
    // nl80211 commands and attributes
    static let CMD_GET_INTERFACE: UInt8 = 5, CMD_GET_SCAN: UInt8 = 32, CMD_TRIGGER_SCAN: UInt8 = 33
    static let ATTR_IFINDEX: UInt16 = 3, ATTR_IFNAME: UInt16 = 4, ATTR_IFTYPE: UInt16 = 5
    static let ATTR_SCAN_SSIDS: UInt16 = 45, ATTR_BSS: UInt16 = 47
    // nested BSS attributes
    static let BSS_BSSID: UInt16 = 1, BSS_FREQUENCY: UInt16 = 2, BSS_INFORMATION_ELEMENTS: UInt16 = 6
    static let BSS_SIGNAL_MBM: UInt16 = 7, BSS_STATUS: UInt16 = 9, BSS_SEEN_MS_AGO: UInt16 = 10
    static let BSS_BEACON_IES: UInt16 = 11, BSS_LAST_SEEN_BOOTTIME: UInt16 = 15
    static let IFTYPE_STATION: UInt32 = 2

    /// One attribute: type (flags masked off) and payload.
    package struct Attribute: Equatable, Sendable {
        package var type: UInt16
        package var payload: ArraySlice<UInt8>
    }

    /// Netlink attributes in `bytes` (4-byte aligned TLVs); nil when a length is inconsistent.
    package static func attributes(_ bytes: ArraySlice<UInt8>) -> [Attribute]? {
        var out: [Attribute] = []
        var i = bytes.startIndex
        while i + 4 <= bytes.endIndex {
            let len = Int(u16(bytes, i)), type = u16(bytes, i + 2) & 0x3FFF
            guard len >= 4, i + len <= bytes.endIndex else { return nil }
            out.append(Attribute(type: type, payload: bytes[(i + 4)..<(i + len)]))
            i += (len + 3) & ~3
        }
        return out
    }

    static func u16(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }
    static func u32(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    static func u64(_ b: ArraySlice<UInt8>, _ i: Int) -> UInt64 { UInt64(u32(b, i)) | UInt64(u32(b, i + 4)) << 32 }

    /// One BSS from a GET_SCAN dump entry.
    package struct BSS: Equatable, Sendable {
        package var bssid: String
        package var ssid: String
        package var frequency: Int
        package var signalDBm: Int?
        package var seenMsAgo: Int?
        package var lastSeenBoottimeNs: UInt64?
        package var associated: Bool
        package var ifindex: Int?
    }

    /// Splits a receive buffer into netlink messages: (type, flags, payload after the 16-byte header).
    package static func messages(_ buffer: ArraySlice<UInt8>) -> [(type: UInt16, flags: UInt16, seq: UInt32, payload: ArraySlice<UInt8>)]? {
        var out: [(UInt16, UInt16, UInt32, ArraySlice<UInt8>)] = []
        var i = buffer.startIndex
        while i + 16 <= buffer.endIndex {
            let len = Int(u32(buffer, i))
            guard len >= 16, i + len <= buffer.endIndex else { return nil }
            out.append((u16(buffer, i + 4), u16(buffer, i + 6), u32(buffer, i + 8), buffer[(i + 16)..<(i + len)]))
            i += (len + 3) & ~3
        }
        return out
    }

    /// Parses the payload of an nl80211 NEW_SCAN_RESULTS message (genl header + attributes).
    package static func bss(fromGenlPayload payload: ArraySlice<UInt8>) -> BSS? {
        guard payload.count >= 4, let top = attributes(payload.dropFirst(4)) else { return nil }
        let ifindex = top.first { $0.type == ATTR_IFINDEX && $0.payload.count >= 4 }.map { Int(u32($0.payload, $0.payload.startIndex)) }
        guard let nest = top.first(where: { $0.type == ATTR_BSS }), let a = attributes(nest.payload) else { return nil }
        func attr(_ t: UInt16) -> ArraySlice<UInt8>? { a.first { $0.type == t }?.payload }
        guard let mac = attr(BSS_BSSID), mac.count == 6, let f = attr(BSS_FREQUENCY), f.count >= 4 else { return nil }
        let bssid = mac.map { Hex.byte($0, uppercase: false) }.joined(separator: ":")
        let ies = attr(BSS_INFORMATION_ELEMENTS) ?? attr(BSS_BEACON_IES) ?? []
        let signal = attr(BSS_SIGNAL_MBM).flatMap { $0.count >= 4 ? Int(Int32(bitPattern: u32($0, $0.startIndex))) : nil }
        return BSS(
            bssid: bssid, ssid: ssid(fromIEs: ies) ?? "", frequency: Int(u32(f, f.startIndex)),
            // mBm → dBm, rounded toward the nearer whole dBm
            signalDBm: signal.map { Int((Double($0) / 100).rounded()) },
            seenMsAgo: attr(BSS_SEEN_MS_AGO).flatMap { $0.count >= 4 ? Int(u32($0, $0.startIndex)) : nil },
            lastSeenBoottimeNs: attr(BSS_LAST_SEEN_BOOTTIME).flatMap { $0.count >= 8 ? u64($0, $0.startIndex) : nil },
            associated: attr(BSS_STATUS).map { $0.count >= 4 && u32($0, $0.startIndex) == 1 } ?? false,
            ifindex: ifindex)
    }

    /// The SSID element (id 0) of an information-element list, escaped; nil when absent or truncated.
    package static func ssid(fromIEs ies: ArraySlice<UInt8>) -> String? {
        var i = ies.startIndex
        while i + 2 <= ies.endIndex {
            let id = ies[i], len = Int(ies[i + 1])
            guard i + 2 + len <= ies.endIndex else { return nil }
            if id == 0 { return escapeSSID(ies[(i + 2)..<(i + 2 + len)]) }
            i += 2 + len
        }
        return nil
    }

    /// SSIDs are 0–32 arbitrary bytes. Printable UTF-8 is kept; control bytes, invalid
    /// UTF-8 and the backslash are written `\xNN` (backslash `\\`), so the text is
    /// lossless and safe for terminals and JSON (as `iw` escapes).
    package static func escapeSSID(_ bytes: ArraySlice<UInt8>) -> String {
        if let s = String(validating: bytes, as: UTF8.self),
           !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" || ($0.value >= 0x80 && $0.value < 0xA0) }) {
            return s
        }
        var out = ""
        for b in bytes {
            if b == 0x5C { out += "\\\\" } else if b >= 0x20 && b < 0x7F { out.append(Character(UnicodeScalar(b))) } else { out += "\\x" + Hex.byte(b, uppercase: false) }
        }
        return out
    }

    /// 2.4 GHz, 5 GHz, 6 GHz and 60 GHz channel numbers (IEEE 802.11 channel formulas).
    package static func channel(frequencyMHz f: Int) -> Int? {
        switch f {
        case 2484: return 14
        case 2412...2472: return (f - 2407) / 5
        case 5955...7115: return (f - 5950) / 5
        case 5000...5925: return (f - 5000) / 5
        case 58320...70200: return (f - 56160) / 2160
        default: return nil
        }
    }

    // MARK: building requests

    static func attr(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        let len = 4 + payload.count
        var out = le16(UInt16(len)) + le16(type) + payload
        while out.count % 4 != 0 { out.append(0) }
        return out
    }
    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }

    /// nlmsghdr + genlmsghdr + attributes.
    static func request(family: UInt16, cmd: UInt8, flags: UInt16, seq: UInt32, attributes: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [cmd, 1, 0, 0] + attributes
        return le32(UInt32(16 + body.count)) + le16(family) + le16(flags) + le32(seq) + le32(0) + body
    }

    /// Attributes of a GET_INTERFACE dump entry: (ifindex, name, is a station).
    package static func interface(fromGenlPayload payload: ArraySlice<UInt8>) -> (index: Int, name: String, station: Bool)? {
        guard payload.count >= 4, let a = attributes(payload.dropFirst(4)) else { return nil }
        guard let idx = a.first(where: { $0.type == ATTR_IFINDEX && $0.payload.count >= 4 }),
              let name = a.first(where: { $0.type == ATTR_IFNAME })
        else { return nil }
        let type = a.first { $0.type == ATTR_IFTYPE && $0.payload.count >= 4 }.map { u32($0.payload, $0.payload.startIndex) }
        return (Int(u32(idx.payload, idx.payload.startIndex)), String(decoding: name.payload.prefix { $0 != 0 }, as: UTF8.self),
                type == IFTYPE_STATION)
    }
}
