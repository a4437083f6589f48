import FPHCI
import FPTestSupport
import Foundation
import Testing

/// `fprint regions watch` and `fprint scan --proximity` over btsnoop captures
/// written here: LE Advertising Reports of iBeacons at chosen times.
@Suite("Regions and proximity over replayed captures")
struct BeaconRegionsCLITests {
    static let uuid = "FB0B57A2-8228-44CD-913A-94A122BA1206"
    static let inRegion = BDAddress(0x00, 0xAA, 0x01, 0x01, 0x00, 0x01)
    static let other = BDAddress(0x00, 0xAA, 0x01, 0x01, 0x00, 0x02)

    /// One LE Advertising Report event (ADV_NONCONN_IND, public address) as an H4 frame.
    static func report(_ address: BDAddress, _ data: [UInt8], rssi: Int8) -> [UInt8] {
        let body: [UInt8] = [0x02, 0x01, 0x03, 0x00] + address.littleEndianBytes + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    static func iBeacon(major: UInt16, minor: UInt16, power: Int8 = -59) -> [UInt8] {
        BeaconAdvertisement.iBeacon(uuid: BeaconIdentityText.uuid(uuid) ?? [], major: major, minor: minor, measuredPower: power)
    }

    /// The region's beacon (1/53) at 0, 1, 2, 3 s; beacon 2/7 of the same UUID at
    /// 0.5 s and 45 s, which also makes the capture 45 s long.
    static func capture(in folder: URL) throws -> String {
        let start: Int64 = 1_780_000_000_000_000
        var packets: [BtsnoopWriter.Packet] = []
        for s in 0...3 {
            packets.append(.init(timestampMicros: start + Int64(s) * 1_000_000, h4: report(inRegion, iBeacon(major: 1, minor: 53), rssi: -59), received: true))
        }
        packets.insert(.init(timestampMicros: start + 500_000, h4: report(other, iBeacon(major: 2, minor: 7), rssi: -79), received: true), at: 1)
        packets.append(.init(timestampMicros: start + 45_000_000, h4: report(other, iBeacon(major: 2, minor: 7), rssi: -79), received: true))
        let url = folder.appendingPathComponent("regions.btsnoop")
        try Data(BtsnoopWriter.h4File(packets)).write(to: url)
        return url.path
    }

    /// Enter at the second sighting (1 s), exit 10 s after the last (3 s → 13 s);
    /// beacon 2/7 is another major: never part of the region.
    @Test func enterAndExitOverAReplay() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let r = try await fp.run(["regions", "watch", "--uuid", Self.uuid.lowercased(), "--major", "1", "--exit-after", "10",
                                  "--ble-source", "btsnoop:" + capture, "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.lines.map { try fp.json($0) }
        #expect(events.map { $0["event"] as? String } == ["enter", "exit"], "\(r.stdout)")
        #expect(events.map { $0["ms"] as? Int } == [1000, 13000])
        for e in events {
            let region = try #require(e["region"] as? [String: Any])
            #expect(region["uuid"] as? String == Self.uuid && region["major"] as? Int == 1 && region["minor"] == nil)
            let beacons = try #require(e["beacons"] as? [[String: Any]])
            #expect(beacons.count == 1)
            #expect(beacons.first?["address"] as? String == "00:AA:01:01:00:01")
            #expect(beacons.first?["minor"] as? Int == 53)
            #expect(beacons.first?["rssi"] as? Int == -59)
            #expect((e["time"] as? String)?.hasSuffix("Z") == true)
        }
        #expect((events.last?["beacons"] as? [[String: Any]])?.first?["ms"] as? Int == 3000)  // the last sighting inside
    }

    /// The whole UUID: both beacons are in the region, the enter comes at the
    /// second sighting of either (0.5 s), and the exit waits for the last of them.
    @Test func aUUIDRegionTakesEveryMajor() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let r = try await fp.run(["regions", "watch", "--uuid", Self.uuid, "--exit-after", "30",
                                  "--ble-source", "btsnoop:" + capture, "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.lines.map { try fp.json($0) }
        #expect(events.map { $0["event"] as? String } == ["enter", "exit"], "\(r.stdout)")
        #expect(events.map { $0["ms"] as? Int } == [500, 33000])
        #expect(((events.first?["beacons"] as? [[String: Any]]) ?? []).compactMap { $0["major"] as? Int } == [1, 2])
    }

    /// Ctrl-C (SIGINT) while watching a replay in real time: exit 130, the enter already printed.
    @Test func ctrlCExits130() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let r = try await fp.run(["regions", "watch", "--uuid", Self.uuid, "--ble-source", "btsnoop:" + capture],
                                 interruptWhen: { $0.contains("\"enter\"") })
        #expect(r.status == 130, "\(r.stderr)")
        #expect(r.lines.count == 1 && r.stdout.contains("\"event\":\"enter\""), "\(r.stdout)")
        #expect(r.stderr == "interrupted: regions watch stopped\n")
    }

    @Test(arguments: [
        (["--uuid", "not-a-uuid"], "error: --uuid not-a-uuid: expected a UUID (32 hex digits, as FB0B57A2-8228-44CD-913A-94A122BA1206)\n"),
        (["--uuid", uuid, "--minor", "3"], "error: --minor needs --major: a region is a UUID, a UUID and major, or all three\n"),
        (["--uuid", uuid, "--major", "70000"], "error: --major 70000: expected 0 to 65535\n"),
        (["--uuid", uuid, "--exit-after", "0"], "error: --exit-after 0: expected whole seconds, at least 1\n"),
    ])
    func badRegionArguments(args: [String], message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["regions", "watch"] + args + ["--ble-source", "btsnoop:/nonexistent.btsnoop", "--fast"])
        #expect(r.status == 64)
        #expect(r.stderr == message)
        #expect(r.stdout.isEmpty)
    }

    /// Measured power -59 heard at -59 dBm: 1 m, near; -79 dBm against -59: 10 m, far.
    @Test func proximityLinesPerBeacon() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let r = try await fp.run(["scan", "--proximity", "--ble-source", "btsnoop:" + capture, "--fast", "--duration", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map { try fp.json($0) }
        let last = Dictionary(rows.map { (($0["beacon"] as? [String: Any])?["major"] as? Int ?? -1, $0) }, uniquingKeysWith: { _, b in b })
        #expect(Set(last.keys) == [1, 2])
        #expect(last[1]?["proximity"] as? String == "near")
        #expect(Self.number(last[1]?["distance"]) == 1)
        #expect(Self.number(last[1]?["rssi"]) == -59)
        #expect(Self.number(last[1]?["measuredPower"]) == -59)
        #expect(last[2]?["proximity"] as? String == "far")
        #expect(Self.number(last[2]?["distance"]) == 10)
        #expect(last[2]?["address"] as? String == "00:AA:01:01:00:02")
    }

    /// A JSON number whichever way it was written (`1` or `1.0`).
    static func number(_ value: Any?) -> Double? {
        if let i = value as? Int { return Double(i) }
        return value as? Double
    }

    /// With --map, only the registry's beacons, under their registry names.
    @Test func proximityWithAMapShowsRegisteredBeaconsOnly() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let folder = fp.home.appendingPathComponent("config/fprint/beacons")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try #"[null, {"mac": "00:aa:01:01:00:01", "uuid": "\#(Self.uuid)", "major": 1, "minor": 53, "x": 10, "y": 20, "name": "door"}]"#
            .write(to: folder.appendingPathComponent("J1NP.json"), atomically: true, encoding: .utf8)
        let r = try await fp.run(["scan", "--proximity", "--map", "J1NP", "--ble-source", "btsnoop:" + capture, "--fast", "--duration", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map { try fp.json($0) }
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0["name"] as? String == "door" && $0["address"] as? String == "00:AA:01:01:00:01" }, "\(r.stdout)")
    }

    /// On a terminal 80 columns wide: a table whose rows all fit.
    @Test func proximityTableFitsEightyColumns() async throws {
        let fp = try FprintRunner()
        let capture = try Self.capture(in: fp.home)
        let term = try fp.onTerminal(["scan", "--proximity", "--ble-source", "btsnoop:" + capture, "--fast", "--duration", "3"], columns: 80)
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        let rows = term.rows.filter { $0.hasPrefix("near") || $0.hasPrefix("far") }
        #expect(!rows.isEmpty, "\(term.transcript)")
        #expect(term.rows.contains { $0.hasPrefix("PROXIMITY") })
        for row in term.rows { #expect(row.count < 80, "\(row.count) columns: \(row)") }
    }
}

@Suite("fprint advertise: arguments")
struct AdvertiseCLITests {
    static let uuid = "FB0B57A2-8228-44CD-913A-94A122BA1206"

    @Test(arguments: [
        ([String](), "error: name a beacon: --ibeacon UUID --major M --minor N, or --eddystone-uid NAMESPACE INSTANCE\n"),
        (["--ibeacon", "FB0B57A2-8228-44CD-913A", "--major", "1", "--minor", "2"],
         "error: --ibeacon FB0B57A2-8228-44CD-913A: expected a UUID (32 hex digits, as FB0B57A2-8228-44CD-913A-94A122BA1206)\n"),
        (["--ibeacon", uuid, "--major", "1"], "error: --minor is missing: an iBeacon needs --major and --minor (0-65535)\n"),
        (["--ibeacon", uuid, "--major", "65536", "--minor", "2"], "error: --major 65536: expected 0 to 65535\n"),
        (["--ibeacon", uuid, "--major", "1", "--minor", "2", "--power", "5"],
         "error: --power 5: expected -100 to 0 dBm (an iBeacon's RSSI at 1 m)\n"),
        (["--ibeacon", uuid, "--major", "1", "--minor", "2", "--interval", "19"],
         "error: --interval 19: expected 20 to 10240 ms (the LE advertising interval's range)\n"),
        (["--ibeacon", uuid, "--major", "1", "--minor", "2", "--interval", "10241"],
         "error: --interval 10241: expected 20 to 10240 ms (the LE advertising interval's range)\n"),
        (["--ibeacon", uuid, "--major", "1", "--minor", "2", "--adapter", "wlan0"], "error: --adapter wlan0: expected hciN (hci0, hci1, …)\n"),
        (["--eddystone-uid", "00112233445566778899"],
         "error: --eddystone-uid: expected two values, NAMESPACE (20 hex digits) and INSTANCE (12 hex digits); got 1\n"),
        (["--eddystone-uid", "0011223344556677889", "AABBCCDDEEFF"], "error: --eddystone-uid namespace 0011223344556677889: expected 20 hex digits (10 bytes)\n"),
        (["--eddystone-uid", "00112233445566778899", "AABBCCDDEEFX"], "error: --eddystone-uid instance AABBCCDDEEFX: expected 12 hex digits (6 bytes)\n"),
        (["--eddystone-uid", "00112233445566778899", "AABBCCDDEEFF", "--power", "30"],
         "error: --power 30: expected -100 to 20 dBm (an Eddystone's power at 0 m)\n"),
        (["--eddystone-uid", "00112233445566778899", "AABBCCDDEEFF", "--ibeacon", uuid],
         "error: --ibeacon and --eddystone-uid exclude each other: advertise one beacon at a time\n"),
    ])
    func badArgumentsAreOneLineAndExit64(args: [String], message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["advertise"] + args)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr == message)
        #expect(r.stdout.isEmpty)
    }

    /// Valid arguments on a kernel without Bluetooth: one line, exit 80 (the VM test covers a real controller).
    @Test func noBluetoothInTheKernel() async throws {
        guard socket(31, Int32(SOCK_RAW.rawValue), 1) < 0, errno == EAFNOSUPPORT else { return }
        let fp = try FprintRunner()
        let r = try await fp.run(["advertise", "--ibeacon", Self.uuid, "--major", "1", "--minor", "53"])
        #expect(r.status == 80)
        #expect(r.stderr.hasPrefix("error: this kernel has no Bluetooth sockets") && r.stderr.split(separator: "\n").count == 1)
    }
}
