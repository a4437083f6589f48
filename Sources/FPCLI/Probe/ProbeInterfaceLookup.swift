import FPCore
import FPLinuxRadios
import FPProbe
import Foundation

/// The interface traffic to the probe server leaves by (the kernel's route,
/// read from a connected UDP socket's local address) and its type from sysfs.
enum ProbeInterfaceLookup {
    static func interface(towards host: String, port: UInt16, sysfs: String = "/sys/class/net") -> ProbeInterface? {
        guard let local = localAddress(towards: host, port: port), let name = interfaceName(of: local) else { return nil }
        let base = sysfs + "/" + name
        let exists = { FileManager.default.fileExists(atPath: base + "/" + $0) }
        var type: String
        if name == "lo" { type = "loopback" }
        else if exists("wireless") || exists("phy80211") { type = "wifi" }
        else if name.hasPrefix("wwan") || name.hasPrefix("rmnet") || name.hasPrefix("ww") { type = "cellular" }
        else if exists("device") { type = "ethernet" }
        else { type = "virtual" }
        var result = ProbeInterface(name: name, type: type)
        if type == "wifi", let ap = NL80211Provider.association(interface: name) {
            (result.ssid, result.bssid) = (ap.ssid, ap.bssid)
            (result.signalDBm, result.frequencyMHz) = (ap.signalDBm, ap.frequency)
        }
        if type == "cellular", let cell = ModemManagerProvider().servingCell() {
            // What ModemManager reports; absent without a modem.
            result.operator = cell.operatorName ?? [cell.mcc, cell.mnc].compactMap { $0 }.joined()
            result.cell = cell
        }
        return result
    }

    /// The local address the kernel would use towards host:port (no packet is sent).
    static func localAddress(towards host: String, port: UInt16) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return nil }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(fd, $0, &length) == 0 && getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
            }
        }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }

    /// The interface holding a local address (getifaddrs).
    static func interfaceName(of address: String) -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let addr = entry.pointee.ifa_addr else { continue }
            let family = Int32(addr.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(addr, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) }
            if text == address { return String(cString: entry.pointee.ifa_name) }
        }
        return nil
    }
}
