import Foundation

/// Facts about this host that decide what fprint can record (for `fprint doctor`).
package enum HostCapabilities {
    /// One rfkill switch from /sys/class/rfkill (root injectable for tests).
    package struct RFKill: Sendable, Equatable, Codable {
        package var name: String
        package var type: String
        package var softBlocked: Bool
        package var hardBlocked: Bool
    }

    package static func rfkill(root: String = "/sys/class/rfkill") -> [RFKill] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        func read(_ path: String) -> String? {
            FileManager.default.contents(atPath: path).map {
                String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return entries.filter { $0.hasPrefix("rfkill") }.sorted().compactMap { e in
            let dir = "\(root)/\(e)"
            guard let type = read("\(dir)/type") else { return nil }
            return RFKill(name: read("\(dir)/name") ?? e, type: type, softBlocked: read("\(dir)/soft") == "1",
                          hardBlocked: read("\(dir)/hard") == "1")
        }
    }

    /// Effective capabilities from /proc/self/status `CapEff` (hex bit mask).
    package static func effectiveCapabilities(status: String) -> UInt64? {
        for line in status.split(separator: "\n") where line.hasPrefix("CapEff:") {
            return UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
        }
        return nil
    }

    /// The capabilities fprint's sources need, by name: NET_ADMIN (12) triggers Wi-Fi scans,
    /// NET_RAW (13) opens raw HCI sockets for BLE.
    package static func relevantCapabilities(_ mask: UInt64) -> [String: Bool] {
        ["CAP_NET_ADMIN": mask & (1 << 12) != 0, "CAP_NET_RAW": mask & (1 << 13) != 0]
    }

    /// Bluetooth controllers the kernel has (/sys/class/bluetooth/hciN).
    package static func bluetoothAdapters(root: String = "/sys/class/bluetooth") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0.hasPrefix("hci") && !$0.contains(":") }.sorted()
    }

    /// Whether a TCP connection to the URL's host and port succeeds (gateway reachability).
    package static func reachable(url: String, timeoutMs: Int = 2000) -> String? {
        guard let u = URL(string: url), let host = u.host else { return "not a URL: \(url)" }
        let port = UInt16(u.port ?? (u.scheme == "https" ? 443 : 80))
        do {
            let s = try LineSocket.connect(host: host, port: port, timeoutMs: timeoutMs)
            s.close()
            return nil
        } catch {
            return error.description
        }
    }
}
