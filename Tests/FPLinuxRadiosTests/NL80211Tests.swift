import FPCore
import FPHex
import Testing
@testable import FPLinuxRadios

@Suite struct NL80211ParsingTests {
    /// A NEW_SCAN_RESULTS genl payload laid out as nl80211 sends it (linux/nl80211.h numbering).
    static let scanEntry: [UInt8] = [
        0x22, 0x01, 0x00, 0x00,  // genlmsghdr: cmd 34 (NEW_SCAN_RESULTS), version 1, reserved
        0x08, 0x00, 0x03, 0x00, 0x05, 0x00, 0x00, 0x00,  // NL80211_ATTR_IFINDEX = 5
        0x50, 0x00, 0x2F, 0x80,  // NL80211_ATTR_BSS (47) | NLA_F_NESTED, length 80
        0x0A, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // BSS_BSSID 02:00:00:00:01:00 + pad
        0x08, 0x00, 0x02, 0x00, 0x85, 0x09, 0x00, 0x00,  // BSS_FREQUENCY 2437 MHz (channel 6)
        0x08, 0x00, 0x07, 0x00, 0x48, 0xF4, 0xFF, 0xFF,  // BSS_SIGNAL_MBM -3000 (−30 dBm)
        0x08, 0x00, 0x0A, 0x00, 0x78, 0x00, 0x00, 0x00,  // BSS_SEEN_MS_AGO 120
        0x0C, 0x00, 0x0F, 0x00, 0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00,  // BSS_LAST_SEEN_BOOTTIME 1e9 ns
        0x08, 0x00, 0x09, 0x00, 0x01, 0x00, 0x00, 0x00,  // BSS_STATUS 1 = associated
        0x13, 0x00, 0x06, 0x00,  // BSS_INFORMATION_ELEMENTS, 15 bytes:
        0x00, 0x0A, 0x66, 0x70, 0x72, 0x69, 0x6E, 0x74, 0x2D, 0x61, 0x70, 0x36,  //   SSID "fprint-ap6"
        0x03, 0x01, 0x06,  //   DS parameter set: channel 6
        0x00,  // attribute padding
    ]

    @Test func parsesABSSEntry() throws {
        let bss = try #require(NL80211.bss(fromGenlPayload: Self.scanEntry[...]))
        #expect(bss.bssid == "02:00:00:00:01:00" && bss.ssid == "fprint-ap6")
        #expect(bss.frequency == 2437 && bss.signalDBm == -30 && bss.seenMsAgo == 120)
        #expect(bss.lastSeenBoottimeNs == 1_000_000_000 && bss.associated && bss.ifindex == 5)
    }

    @Test func everyTruncationIsRejectedWithoutTrapping() {
        // Proper prefixes that cut into the BSS nest must not parse (nor crash).
        for n in 0..<Self.scanEntry.count - 1 where n < 84 {
            #expect(NL80211.bss(fromGenlPayload: Self.scanEntry[0..<n]) == nil, "prefix \(n)")
        }
    }

    @Test func messageFraming() throws {
        // Two netlink messages back to back: a 20-byte one and NLMSG_DONE.
        let msg: [UInt8] = [20, 0, 0, 0, 0x1C, 0, 2, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]
            + [20, 0, 0, 0, 3, 0, 2, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let m = try #require(NL80211.messages(msg[...]))
        #expect(m.count == 2 && m[0].type == 0x1C && m[0].seq == 7 && Array(m[0].payload) == [1, 2, 3, 4] && m[1].type == 3)
        #expect(NL80211.messages([40, 0, 0, 0, 3, 0, 2, 0, 7, 0, 0, 0, 0, 0, 0, 0][...]) == nil)  // claims more than present
    }

    @Test(arguments: [
        (Array("café".utf8), "café"),
        ([0x61, 0x00, 0x62], "a\\x00b"),  // NUL inside an SSID
        ([0xFF, 0xFE, 0x41], "\\xff\\xfeA"),  // not UTF-8
        (Array("a\\b".utf8), "a\\\\b"),  // the escape character itself
        ([0x1B, 0x5B, 0x32, 0x4A], "\\x1b[2J"),  // a terminal escape sequence
        ([], ""),  // hidden network
    ] as [([UInt8], String)])
    func ssidEscaping(bytes: [UInt8], text: String) {
        #expect(NL80211.escapeSSID(bytes[...]) == text)
    }

    @Test func ssidElementTruncatedIsNil() {
        #expect(NL80211.ssid(fromIEs: [0x00, 0x05, 0x61][...]) == nil)
        #expect(NL80211.ssid(fromIEs: [0x03, 0x01, 0x06, 0x00, 0x01, 0x78][...]) == "x")
    }

    @Test(arguments: [(2412, 1), (2437, 6), (2462, 11), (2484, 14), (5180, 36), (5825, 165), (5955, 1), (6115, 33), (900, nil)] as [(Int, Int?)])
    func channels(frequency: Int, channel: Int?) {
        #expect(NL80211.channel(frequencyMHz: frequency) == channel)
    }

    @Test func requestLayout() {
        let req = NL80211.request(family: 0x1C, cmd: NL80211.CMD_TRIGGER_SCAN, flags: 0x5, seq: 9,
                                  attributes: NL80211.attr(NL80211.ATTR_IFINDEX, NL80211.le32(3)))
        #expect(req == [28, 0, 0, 0, 0x1C, 0, 5, 0, 9, 0, 0, 0, 0, 0, 0, 0, 33, 1, 0, 0, 8, 0, 3, 0, 3, 0, 0, 0])
    }
}

@Suite struct NL80211RecordedDumpTests {
    /// Real NEW_SCAN_RESULTS payloads recorded in the qemu VM (kernel 6.1, mac80211_hwsim,
    /// three hostapd APs) with FPRINT_NL80211_RECORD during `make test-vm-wifi`.
    @Test func recordedHwsimDumpParses() throws {
        let lines = try Fixtures.text("nl80211/hwsim-scan-dump.hex").split(separator: "\n")
        let entries = try lines.map { line -> NL80211.BSS in
            let bytes = try #require(Hex.bytes(line))
            return try #require(NL80211.bss(fromGenlPayload: bytes[...]))
        }
        // The first non-empty dump came while the scan was still on channel 1: one BSS.
        let bss = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(bss.ssid == "fprint-ap1" && bss.frequency == 2412 && bss.bssid == "02:00:00:00:01:00")
        #expect(entries.allSatisfy { $0.signalDBm == -30 && $0.lastSeenBoottimeNs != nil && $0.seenMsAgo != nil })
        #expect(entries.allSatisfy { $0.bssid.hasPrefix("02:00:00:00:") && !$0.associated })
    }
}
