import FPCore
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Device state from a Linux machine: hostname, hardware model (DMI or device
/// tree), OS and kernel, battery (sysfs power_supply) and a persistent install id.
///
/// Every file is read under `root`, so tests run it against a fake sysfs tree.
/// Nothing here fails a measurement: what cannot be read is named in the status reason.
package struct LinuxDeviceProvider: DeviceInfoProvider {
    package let root: String
    /// Where the install id (the document's `deviceId`) lives; not under `root`.
    package let installIdPath: String

    package init(root: String = "/", installIdPath: String) {
        self.root = root
        self.installIdPath = installIdPath
    }

    package func snapshot() -> DeviceSnapshot {
        var missing: [String] = []
        let hardware = hardwareModel() ?? {
            missing.append("hardware model (no DMI or device-tree model)")
            return "unknown"
        }()
        let pretty = osPrettyName()
        let kernel = read("proc/sys/kernel/osrelease")
        if pretty == nil { missing.append("os-release PRETTY_NAME") }
        if kernel == nil { missing.append("kernel release") }
        let osId = [pretty ?? "Linux", kernel.map { "kernel \($0)" }].compactMap { $0 }.joined(separator: " / ")
        let battery = self.battery()
        if battery == nil { missing.append("battery (no power_supply of type Battery)") }
        let (deviceId, idProblem) = installId()
        if let idProblem { missing.append(idProblem) }
        let host = hostname()
        if host.isEmpty { missing.append("hostname") }
        return DeviceSnapshot(
            deviceId: deviceId, hostname: host, hardware: hardware, osName: "Linux", osId: osId,
            batteryLevel: battery?.level, batteryState: battery?.state ?? "unknown",
            status: ProviderStatus(status: .ok, source: "sysfs",
                                   reason: missing.isEmpty ? nil : "missing: " + missing.joined(separator: "; ")))
    }

    // MARK: pieces

    func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Firmware writes these when the vendor left the field blank.
    static let placeholders: Set<String> = [
        "to be filled by o.e.m.", "to be filled by oem", "default string", "system manufacturer",
        "system product name", "not applicable", "not specified", "none", "o.e.m.", "oem", "unknown",
        "type1productconfigid", "0123456789", "123456789", "x.x",
    ]

    private func dmiField(_ name: String) -> String? {
        guard let value = read("sys/class/dmi/id/\(name)"),
              !LinuxDeviceProvider.placeholders.contains(value.lowercased()) else { return nil }
        return value
    }

    /// DMI vendor + product (PCs, VMs), else the device-tree model (ARM boards).
    func hardwareModel() -> String? {
        let vendor = dmiField("sys_vendor"), product = dmiField("product_name")
        switch (vendor, product) {
        case let (v?, p?): return p.lowercased().hasPrefix(v.lowercased()) ? p : "\(v) \(p)"
        case let (v?, nil): return v
        case let (nil, p?): return p
        case (nil, nil): return read("proc/device-tree/model")
        }
    }

    /// PRETTY_NAME from os-release (shell-style assignment, optionally quoted).
    func osPrettyName() -> String? {
        guard let text = read("etc/os-release") ?? read("usr/lib/os-release") else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("PRETTY_NAME=") {
            var value = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The first system battery; `scope` Device marks a peripheral's (mouse, headset) battery.
    func battery() -> (level: Double?, state: String)? {
        let base = "sys/class/power_supply"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(base))) ?? []
        for name in names.sorted() {
            let dir = "\(base)/\(name)"
            guard read("\(dir)/type") == "Battery", read("\(dir)/scope") != "Device" else { continue }
            var level = read("\(dir)/capacity").flatMap(Double.init).map { $0 / 100 }
            if level == nil {  // Some batteries only report energy or charge counters.
                for (now, full) in [("energy_now", "energy_full"), ("charge_now", "charge_full")] {
                    if let n = read("\(dir)/\(now)").flatMap(Double.init), let f = read("\(dir)/\(full)").flatMap(Double.init),
                       f > 0 {
                        level = n / f
                        break
                    }
                }
            }
            let state = switch read("\(dir)/status") {
            case "Discharging": "unplugged"
            case "Charging": "charging"
            case "Full": "full"
            default: "unknown"
            }
            return (level.map { min(max($0, 0), 1) }, state)
        }
        return nil
    }

    /// The install id: a random UUID made on first use and kept (mode 0600).
    /// Returns a problem text when it could not be kept; the id is then only for this run.
    func installId() -> (String, String?) {
        if let existing = readAbsolute(installIdPath), let uuid = UUID(uuidString: existing) {
            return (uuid.uuidString.lowercased(), nil)
        }
        let id = UUID().uuidString.lowercased()
        do {
            // URL, not NSString: Foundation's deletingLastPathComponent traps on one-character names.
            try FileManager.default.createDirectory(at: URL(fileURLWithPath: installIdPath).deletingLastPathComponent(),
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Write a temporary file, then link it into place: readers never see a
            // half-written id, and of two first runs racing, the loser adopts the winner's id.
            let temporary = "\(installIdPath).\(getpid()).tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            guard fd >= 0 else { throw POSIXFailure(afterCall: "open") }
            defer { unlink(temporary) }
            let bytes = Array("\(id)\n".utf8)
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let synced = fsync(fd)
            close(fd)
            guard written == bytes.count, synced == 0 else { throw POSIXFailure(afterCall: "write") }
            if link(temporary, installIdPath) != 0 {
                if Errno(rawValue: errno) == .fileExists, let existing = readAbsolute(installIdPath), let uuid = UUID(uuidString: existing) {
                    return (uuid.uuidString.lowercased(), nil)
                }
                // Present but not a UUID (damaged): replace it.
                guard rename(temporary, installIdPath) == 0 else { throw POSIXFailure(afterCall: "rename") }
            }
            // The id is in every document from now on: its name must outlive a power cut.
            DirectorySync.sync(containing: installIdPath)
            return (id, nil)
        } catch {
            return (id, "install id not kept at \(installIdPath) (\(error))")
        }
    }

    // MARK: files

    private func path(_ relative: String) -> String {
        root.hasSuffix("/") ? root + relative : root + "/" + relative
    }

    /// File contents under root, trimmed of white space and NULs (device-tree strings end in NUL); nil if absent or empty.
    func read(_ relative: String) -> String? { readAbsolute(path(relative)) }

    private func readAbsolute(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
            .trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
        return text.isEmpty ? nil : text
    }
}

/// A system call that failed, with the errno it left.
private struct POSIXFailure: Error, CustomStringConvertible {
    let call: String
    let code: Errno
    init(afterCall call: String) {
        self.call = call
        code = Errno(rawValue: errno)
    }
    var description: String { "\(call): \(code)" }
}
