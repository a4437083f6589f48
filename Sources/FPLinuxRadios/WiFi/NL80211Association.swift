import FPCore

extension NL80211Provider {
    /// The access point a Wi-Fi interface is associated with (SSID, BSSID,
    /// frequency and the signal last heard from it), from the kernel's cached
    /// scan results: no scan is triggered and no privilege is needed. Nil
    /// when not associated or not a Wi-Fi interface.
    package static func association(interface name: String) -> NL80211.BSS? {
        guard let s = try? GenericNetlinkSocket(), let family = try? s.familyID("nl80211"),
              let list = try? s.transact(family: family, cmd: NL80211.CMD_GET_INTERFACE, dump: true, attributes: [])
                  .compactMap(NL80211.interface(fromGenlPayload:)),
              let index = list.first(where: { $0.name == name })?.index else { return nil }
        let ifattr = NL80211.attr(NL80211.ATTR_IFINDEX, NL80211.le32(UInt32(index)))
        guard let entries = try? s.transact(family: family, cmd: NL80211.CMD_GET_SCAN, dump: true, attributes: ifattr) else { return nil }
        return entries.compactMap(NL80211.bss(fromGenlPayload:)).first(where: \.associated)
    }
}
