import FPTestSupport
import Foundation
import Testing
@testable import FPLinuxRadios

@Suite struct HostCapabilitiesTests {
    @Test func rfkillSwitchesFromSysfs() throws {
        let root = try makeTemporaryFolder("rfkill").path
        for (dir, files) in [("rfkill0", ["type": "wlan", "name": "phy0", "soft": "1", "hard": "0"]),
                             ("rfkill1", ["type": "bluetooth", "name": "hci0", "soft": "0", "hard": "1"]),
                             ("rfkill2", ["type": "wwan", "name": "modem", "soft": "0", "hard": "0"])] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(dir)", withIntermediateDirectories: true)
            for (k, v) in files { try (v + "\n").write(toFile: "\(root)/\(dir)/\(k)", atomically: true, encoding: .utf8) }
        }
        let list = HostCapabilities.rfkill(root: root)
        #expect(list == [
            .init(name: "phy0", type: "wlan", softBlocked: true, hardBlocked: false),
            .init(name: "hci0", type: "bluetooth", softBlocked: false, hardBlocked: true),
            .init(name: "modem", type: "wwan", softBlocked: false, hardBlocked: false),
        ])
        #expect(HostCapabilities.rfkill(root: "/nonexistent").isEmpty)
    }

    @Test func capabilitiesFromProcStatus() throws {
        // Lines as /proc/self/status prints them: root (all caps) and a user with only CAP_NET_RAW.
        let root = "Name:\tfprint\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\n"
        let mask = try #require(HostCapabilities.effectiveCapabilities(status: root))
        #expect(HostCapabilities.relevantCapabilities(mask) == ["CAP_NET_ADMIN": true, "CAP_NET_RAW": true])
        let raw = try #require(HostCapabilities.effectiveCapabilities(status: "CapEff:\t0000000000002000\n"))
        #expect(HostCapabilities.relevantCapabilities(raw) == ["CAP_NET_ADMIN": false, "CAP_NET_RAW": true])
        #expect(HostCapabilities.effectiveCapabilities(status: "Name: x\n") == nil)
    }

    @Test func gatewayReachability() throws {
        let port = try freeTCPPort()
        #expect(HostCapabilities.reachable(url: "http://127.0.0.1:\(port)/db") == "Connection refused")
        #expect(HostCapabilities.reachable(url: "not a url") == "not a URL: not a url")
    }
}
