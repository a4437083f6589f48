import FPCore
import FPTestSupport
import Foundation
import Testing
@testable import FPLinuxRadios

/// A fake filesystem root in a temporary directory.
final class FakeRoot {
    let path: String

    init() throws {
        path = try makeTemporaryFolder("fprint-root").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ relative: String, _ contents: String) throws {
        let file = (path as NSString).appendingPathComponent(relative)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try contents.write(toFile: file, atomically: false, encoding: .utf8)
    }

    func provider() -> LinuxDeviceProvider {
        LinuxDeviceProvider(root: path, installIdPath: (path as NSString).appendingPathComponent("state/fprint/install-id"))
    }

    func laptop(batteryStatus: String = "Charging") throws {
        try write("sys/class/dmi/id/sys_vendor", "LENOVO\n")
        try write("sys/class/dmi/id/product_name", "  ThinkPad X1 Carbon Gen 9 \n")
        try write("etc/os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n")
        try write("proc/sys/kernel/osrelease", "6.12.38+deb13-amd64\n")
        try write("sys/class/power_supply/AC/type", "Mains\n")
        try write("sys/class/power_supply/AC/online", "1\n")
        try write("sys/class/power_supply/BAT0/type", "Battery\n")
        try write("sys/class/power_supply/BAT0/capacity", "57\n")
        try write("sys/class/power_supply/BAT0/status", "\(batteryStatus)\n")
    }
}

@Suite struct LinuxDevice {
    @Test func laptopWithDMIAndChargingBattery() throws {
        let root = try FakeRoot()
        try root.laptop()
        let s = root.provider().snapshot()
        #expect(s.hardware == "LENOVO ThinkPad X1 Carbon Gen 9")
        #expect(s.osName == "Linux")
        #expect(s.osId == "Debian GNU/Linux 13 (trixie) / kernel 6.12.38+deb13-amd64")
        #expect(s.batteryLevel == 0.57)
        #expect(s.batteryState == "charging")
        #expect(s.status == ProviderStatus(status: .ok, source: "sysfs"))
        #expect(!s.hostname.isEmpty)
    }

    @Test(arguments: [("Discharging", "unplugged"), ("Full", "full"), ("Not charging", "unknown"), ("Unknown", "unknown")])
    func batteryStates(_ status: String, _ expected: String) throws {
        let root = try FakeRoot()
        try root.laptop(batteryStatus: status)
        #expect(root.provider().snapshot().batteryState == expected)
    }

    @Test func vendorAlreadyInProductIsNotRepeated() throws {
        let root = try FakeRoot()
        try root.write("sys/class/dmi/id/sys_vendor", "QEMU\n")
        try root.write("sys/class/dmi/id/product_name", "QEMU Virtual Machine\n")
        #expect(root.provider().snapshot().hardware == "QEMU Virtual Machine")
    }

    @Test func placeholderDMIFallsBackToTheDeviceTree() throws {
        let root = try FakeRoot()
        try root.write("sys/class/dmi/id/sys_vendor", "To be filled by O.E.M.\n")
        try root.write("sys/class/dmi/id/product_name", "To Be Filled By O.E.M.\n")
        try root.write("proc/device-tree/model", "Raspberry Pi 4 Model B Rev 1.4\0")
        #expect(root.provider().snapshot().hardware == "Raspberry Pi 4 Model B Rev 1.4")
    }

    @Test func placeholderProductKeepsTheVendor() throws {
        let root = try FakeRoot()
        try root.write("sys/class/dmi/id/sys_vendor", "Micro-Star International Co., Ltd.\n")
        try root.write("sys/class/dmi/id/product_name", "System Product Name\n")
        #expect(root.provider().snapshot().hardware == "Micro-Star International Co., Ltd.")
    }

    @Test func noSystemBattery() throws {
        let root = try FakeRoot()
        try root.laptop()
        try FileManager.default.removeItem(atPath: root.path + "/sys/class/power_supply/BAT0")
        // A wireless mouse's battery is a power_supply of type Battery too, but scope Device.
        try root.write("sys/class/power_supply/hidpp_battery_0/type", "Battery\n")
        try root.write("sys/class/power_supply/hidpp_battery_0/scope", "Device\n")
        try root.write("sys/class/power_supply/hidpp_battery_0/capacity", "90\n")
        let s = root.provider().snapshot()
        #expect(s.batteryLevel == nil)
        #expect(s.batteryState == "unknown")
        #expect(s.status.status == .ok)
        #expect(s.status.reason == "missing: battery (no power_supply of type Battery)")
    }

    @Test func batteryWithoutCapacityUsesEnergyCounters() throws {
        let root = try FakeRoot()
        try root.write("sys/class/power_supply/BAT1/type", "Battery\n")
        try root.write("sys/class/power_supply/BAT1/energy_now", "25000000\n")
        try root.write("sys/class/power_supply/BAT1/energy_full", "50000000\n")
        try root.write("sys/class/power_supply/BAT1/status", "Discharging\n")
        let s = root.provider().snapshot()
        #expect(s.batteryLevel == 0.5)
        #expect(s.batteryState == "unplugged")
    }

    @Test func emptyRootNamesEverythingMissing() throws {
        let root = try FakeRoot()
        let s = root.provider().snapshot()
        #expect(s.hardware == "unknown")
        #expect(s.osName == "Linux")
        #expect(s.osId == "Linux")
        #expect(s.batteryLevel == nil && s.batteryState == "unknown")
        #expect(s.status.status == .ok && s.status.source == "sysfs")
        #expect(s.status.reason == "missing: hardware model (no DMI or device-tree model); os-release PRETTY_NAME; "
            + "kernel release; battery (no power_supply of type Battery)")
    }

    @Test func installIdIsCreatedOncePrivateAndReused() throws {
        let root = try FakeRoot()
        let idPath = root.path + "/state/fprint/install-id"
        #expect(!FileManager.default.fileExists(atPath: idPath))
        let first = root.provider().snapshot().deviceId
        #expect(UUID(uuidString: first) != nil)
        #expect(first == first.lowercased())
        let attributes = try FileManager.default.attributesOfItem(atPath: idPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try String(contentsOfFile: idPath, encoding: .utf8)
        #expect(stored == first + "\n")
        // A new provider (a new run) reads the same id back.
        #expect(root.provider().snapshot().deviceId == first)
        #expect(root.provider().snapshot().deviceId == first)
        // No temporary files are left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path + "/state/fprint") == ["install-id"])
    }

    @Test func damagedInstallIdIsReplaced() throws {
        let root = try FakeRoot()
        try root.write("state/fprint/install-id", "not-a-uuid\n")
        let id = root.provider().snapshot().deviceId
        #expect(UUID(uuidString: id) != nil)
        #expect(root.provider().snapshot().deviceId == id)
    }

    @Test func unwritableInstallIdIsReportedNotFatal() throws {
        let root = try FakeRoot()
        try root.write("blocker", "a file where a directory should be")
        let provider = LinuxDeviceProvider(root: root.path, installIdPath: root.path + "/blocker/install-id")
        let s = provider.snapshot()
        #expect(UUID(uuidString: s.deviceId) != nil)
        #expect(s.status.status == .ok)
        #expect(s.status.reason?.contains("install id not kept at \(root.path)/blocker/install-id") == true, "\(s.status)")
    }

    @Test func thisMachine() throws {
        let root = try FakeRoot()
        let s = LinuxDeviceProvider(root: "/", installIdPath: root.path + "/install-id").snapshot()
        #expect(!s.hostname.isEmpty)
        #expect(s.osName == "Linux")
        #expect(s.osId.contains(" / kernel "), "\(s.osId)")
        #expect(!s.hardware.isEmpty)
        #expect(s.status.source == "sysfs")
    }
}
