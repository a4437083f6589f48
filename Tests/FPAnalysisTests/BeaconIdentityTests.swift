import FPAnalysis
import FPCore
import Foundation
import Testing

/// Beacons known by the identity they advertise (issue 58 item 1) and the
/// minimum trusted RSSI (item 3), below the CLI.
@Suite struct BeaconIdentityTests {
    static let uuid = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    @Test(arguments: [
        ("ibeacon:b9407f30f5f8466eaff925556b57fe6d:1:2", "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2"),
        ("IBEACON:B9407F30-F5F8-466E-AFF9-25556B57FE6D:65535:0", "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:65535:0"),
        ("eddystone:0xEDD1EBEAC04E5DEFA017:0123456789AB", "eddystone:edd1ebeac04e5defa017:0123456789ab"),
        ("db-d8-0e-71-e0-fd", "DB:D8:0E:71:E0:FD"),
        ("dbd80e71e0fd", "DB:D8:0E:71:E0:FD"),
    ])
    func identitiesReadInAnyFormAndWriteOneCanonicalText(text: String, canonical: String) {
        #expect(BeaconIdentity(text: text)?.text == canonical)
        #expect(BeaconIdentity(text: canonical)?.text == canonical, "canonical text reads back as itself")
    }

    @Test(arguments: [
        "ibeacon:b9407f30f5f8466eaff925556b57fe6:1:2",  // 31 hex digits
        "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:65536:0",  // major over 65535
        "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:-1:0",
        "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1",  // no minor
        "eddystone:edd1ebeac04e5defa0:0123456789ab",  // 9-byte namespace
        "eddystone:edd1ebeac04e5defa017:0123456789",  // 5-byte instance
        "DB:D8:0E:71:E0", "nonsense",
    ])
    func malformedIdentitiesAreNone(text: String) {
        #expect(BeaconIdentity(text: text) == nil)
    }

    /// The byte-level reading of a hyphenated UUID gives what Foundation's
    /// parse gives, for every case and for text that is almost one.
    @Test func aUUIDIsReadAsFoundationReadsIt() {
        var rng = SystemRandomNumberGenerator()
        var texts: [String] = []
        for _ in 0..<300 {
            let uuid = UUID().uuidString
            texts += [uuid, uuid.lowercased(), String(uuid.enumerated().map { $0.offset % 3 == 0 ? Character($0.element.lowercased()) : $0.element }),
                      " \(uuid)\t", uuid.replacingOccurrences(of: "-", with: "")]
            var broken = Array(uuid.utf8)
            broken[Int.random(in: 0..<broken.count, using: &rng)] = [UInt8(ascii: "G"), UInt8(ascii: "-"), UInt8(ascii: " "), 0xC3].randomElement(using: &rng)!
            texts.append(String(decoding: broken, as: UTF8.self))
        }
        for text in texts {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            let spaced = trimmed.count == 32 && !trimmed.contains("-")
                ? [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(Array(trimmed)[$0]) }.joined(separator: "-") : trimmed
            #expect(BeaconIdentity.canonicalUUID(text) == UUID(uuidString: spaced)?.uuidString, "\(text)")
        }
        let frame = Beacon(type: "ibeacon", uuid: "b9407f30-f5f8-466e-aff9-25556b57fe6d", major: 65535, minor: 0,
                           namespace: nil, instance: nil)
        #expect(BeaconIdentity(beacon: frame)?.text == "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:65535:0")
        let outOfRange = Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D", major: 65536, minor: 0,
                                namespace: nil, instance: nil)
        #expect(BeaconIdentity(beacon: outOfRange) == nil)
        #expect(BeaconIdentity.hex("EDD1EBEAC04E5DEFA017", bytes: 10) == "edd1ebeac04e5defa017")
        #expect(BeaconIdentity.hex("edd1ebeac04e5defa017", bytes: 10) == "edd1ebeac04e5defa017")
        #expect(BeaconIdentity.hex("edd1ebeac04e5defa01g", bytes: 10) == nil)
    }

    @Test func aFramesIdentityIsItsIBeaconTripleOrEddystoneUIDAndAltBeaconCountsAsIBeacon() {
        let ib = Beacon(type: "ibeacon", uuid: Self.uuid.lowercased(), major: 7, minor: 8)
        var alt = Beacon(type: "altbeacon", uuid: Self.uuid, major: 7, minor: 8)
        alt.companyId = 0x0118
        #expect(BeaconIdentity(beacon: ib) == .iBeacon(uuid: Self.uuid, major: 7, minor: 8))
        #expect(BeaconIdentity(beacon: alt) == BeaconIdentity(beacon: ib))
        #expect(BeaconIdentity(beacon: Beacon(type: "eddystone-uid", namespace: "EDD1EBEAC04E5DEFA017", instance: "0123456789AB"))
            == .eddystoneUID(namespace: "edd1ebeac04e5defa017", instance: "0123456789ab"))
        #expect(BeaconIdentity(beacon: Beacon(type: "eddystone-tlm")) == nil)
        #expect(BeaconIdentity(beacon: Beacon(type: "eddystone-url", url: "https://x")) == nil)
        #expect(BLEScan(address: "c0:00:00:00:00:01", rssi: -60, time: 0).identity == .mac("C0:00:00:00:00:01"))
    }

    // MARK: the registry

    @Test func registryEntriesMayGiveAnIdentityInsteadOfAMac() throws {
        let json: JSONValue = [
            ["uuid": .string(Self.uuid.lowercased()), "major": 1, "minor": 10, "x": 0, "y": 0],
            ["namespace": "EDD1EBEAC04E5DEFA017", "instance": "0123456789ab", "x": 10, "y": 0],
            ["mac": "aa:00:00:00:00:03", "x": 0, "y": 10],
        ]
        let r = try BeaconRegistry(json: json, source: "ids.json")
        #expect(r.entries.map(\.id) == ["ibeacon:\(Self.uuid):1:10", "eddystone:edd1ebeac04e5defa017:0123456789ab",
                                        "AA:00:00:00:00:03"])
        #expect(r.entry(identity: .iBeacon(uuid: Self.uuid, major: 1, minor: 10))?.x == 0)
        #expect(r.entry(identity: .eddystoneUID(namespace: "edd1ebeac04e5defa017", instance: "0123456789ab"))?.x == 10)
        #expect(r.entry(address: "AA-00-00-00-00-03")?.y == 10)
        #expect(r.entry(address: "AA:00:00:00:00:04") == nil)
    }

    static let badEntries: [(JSONValue, String)] = {
        let noID: JSONValue = [["x": 1, "y": 1]]
        let badUUID: JSONValue = [nil, ["uuid": "not-a-uuid", "major": 1, "minor": 2, "x": 1, "y": 1]]
        let bigMajor: JSONValue = [["uuid": .string(uuid), "major": 70000, "minor": 2, "x": 1, "y": 1]]
        let shortInstance: JSONValue = [["namespace": "00112233445566778899", "instance": "0011", "x": 1, "y": 1]]
        return [
            (noID, "ids.json: $[0].mac: expected a MAC address (or an iBeacon uuid/major/minor"),
            (badUUID, "ids.json: $[1].uuid: expected an iBeacon uuid"),
            (bigMajor, "ids.json: $[0].uuid: expected an iBeacon uuid"),
            (shortInstance, "ids.json: $[0].namespace: expected an Eddystone"),
        ]
    }()

    @Test(arguments: badEntries)
    func anEntryWithoutAMacMustHaveAWholeIdentity(json: JSONValue, message: String) {
        #expect {
            try BeaconRegistry(json: json, source: "ids.json")
        } throws: { ($0 as? FingerprintError)?.description.hasPrefix(message) == true }
    }

    /// Identity first: a report advertising a registered identity is that
    /// beacon, whatever its address, even an address another entry has.
    @Test func aReportIsMatchedByItsIdentityFirstThenItsAddress() throws {
        let r = try BeaconRegistry(json: [
            ["mac": "AA:00:00:00:00:01", "uuid": .string(Self.uuid), "major": 1, "minor": 1, "x": 1, "y": 0],
            ["mac": "AA:00:00:00:00:02", "x": 2, "y": 0],
        ], source: "r")
        let one = BeaconIdentity.iBeacon(uuid: Self.uuid, major: 1, minor: 1)
        #expect(r.entry(address: "AA:00:00:00:00:02", identity: one)?.x == 1)
        #expect(r.entry(address: "AA:00:00:00:00:02", identity: nil)?.x == 2)
        #expect(r.entry(address: "AA:00:00:00:00:02", identity: .iBeacon(uuid: Self.uuid, major: 9, minor: 9))?.x == 2)
    }

    /// Two entries advertising the same identity cannot be told apart by it: each is matched by its address.
    @Test func anIdentityTwoEntriesShareMatchesNeitherAndTheirAddressesDecide() throws {
        let r = try BeaconRegistry(json: [
            ["mac": "AA:00:00:00:00:01", "uuid": .string(Self.uuid), "major": 1, "minor": 1, "x": 1, "y": 0],
            ["mac": "AA:00:00:00:00:02", "uuid": .string(Self.uuid), "major": 1, "minor": 1, "x": 2, "y": 0],
        ], source: "r")
        let shared = BeaconIdentity.iBeacon(uuid: Self.uuid, major: 1, minor: 1)
        #expect(r.entry(identity: shared) == nil)
        #expect(r.entry(address: "AA:00:00:00:00:02", identity: shared)?.x == 2)
        #expect(r.entry(address: "C0:FF:EE:00:00:01", identity: shared) == nil)
    }

    @Test(arguments: ["J1NP", "J2NP", "J3NP"])
    func theShippedRegistriesLoadUnchangedAndGainTheirIBeaconIdentities(map: String) throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/beacons/\(map).json")
        let raw = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [Any])
        let placed = raw.compactMap { $0 as? [String: Any] }.filter { $0["x"] != nil && $0["y"] != nil }
        let r = try BeaconRegistry(json: try CanonicalJSON.parse(Data(contentsOf: file)), source: file.path)
        #expect(r.entries.count == placed.count && r.entries.count >= 15)
        #expect(r.entries.map(\.mac) == placed.map { ($0["mac"] as? String)?.uppercased() })
        #expect(r.entries.allSatisfy { $0.iBeacon != nil && $0.id == $0.mac })
        for (e, p) in zip(r.entries, placed) {
            #expect(e.x == (p["x"] as? Double) && e.y == (p["y"] as? Double))
            #expect(r.entry(identity: e.iBeacon!) == e, "\(e.id) by its identity")
        }
    }

    // MARK: rotating addresses

    /// Three identity-only beacons on a 10 m square's corners (metres = units),
    /// each heard from three random addresses in turn, one of them also
    /// sending an Eddystone-TLM frame that carries no identity of its own.
    static let registry: JSONValue = [
        ["uuid": .string(uuid), "major": 1, "minor": 1, "x": 0, "y": 0, "measuredPower": -59],
        ["uuid": .string(uuid), "major": 1, "minor": 2, "x": 10, "y": 0, "measuredPower": -59],
        ["namespace": "edd1ebeac04e5defa017", "instance": "0123456789ab", "x": 0, "y": 10, "measuredPower": -59],
    ]

    /// RSSI of a beacon at `d` metres with the log-distance law (n = 2, −59 dBm at 1 m).
    static func rssi(_ d: Double) -> Int { Int((-59 - 20 * log10(d)).rounded()) }

    static func rotatingBody(at p: (x: Double, y: Double)) -> String {
        let beacons: [(frame: String, x: Double, y: Double)] = [
            (#"{"major":1,"minor":1,"type":"ibeacon","uuid":"\#(uuid)"}"#, 0, 0),
            (#"{"major":1,"minor":2,"type":"altbeacon","uuid":"\#(uuid.lowercased())"}"#, 10, 0),
            (#"{"instance":"0123456789AB","namespace":"EDD1EBEAC04E5DEFA017","type":"eddystone-uid"}"#, 0, 10),
        ]
        var scans: [String] = []
        for (b, beacon) in beacons.enumerated() {
            let d = ((p.x - beacon.x) * (p.x - beacon.x) + (p.y - beacon.y) * (p.y - beacon.y)).squareRoot()
            for rotation in 0..<3 {
                let address = String(format: "D%d:%02X:00:00:00:%02X", b, rotation, rotation * 16 + b)
                scans.append(#"{"address":"\#(address)","addressType":"random","beacon":\#(beacon.frame),"rssi":\#(rssi(d)),"time":\#(rotation * 1000 + b)}"#)
            }
        }
        // The Eddystone beacon's telemetry, from its last address, no identity in the frame.
        scans.append(#"{"address":"D2:02:00:00:00:22","beacon":{"batteryMilliVolts":2400,"type":"eddystone-tlm"},"rssi":-70,"time":2500}"#)
        return #"{"bleScans":[\#(scans.joined(separator: ","))],"level":"SQ","mode":"static","startTime":"2026-11-20T10:00:00.000Z","x":3,"y":4}"#
    }

    @Test func everyReaderKeepsTheIdentityEachAddressAdvertised() throws {
        let body = Self.rotatingBody(at: (3, 4))
        let tree = try Fingerprint(id: "d", body: CanonicalJSON.parse(Data(body.utf8)))
        let lean = try Fingerprint(id: "d", json: Data(body.utf8))
        let text = try Fingerprint(id: "d", text: body, names: TransmitterNames())
        #expect(tree.bleIdentities.count == 9)
        #expect(tree.bleIdentities["BLE:d1:01:00:00:00:11"] == .iBeacon(uuid: Self.uuid, major: 1, minor: 2))
        #expect(tree.bleIdentities["BLE:d2:02:00:00:00:22"]
            == .eddystoneUID(namespace: "edd1ebeac04e5defa017", instance: "0123456789ab"))
        #expect(lean == tree && text == tree)
        // Keyed by identity, nine addresses are three transmitters; by address (the default) nine.
        #expect(Set(tree.keyed(by: .identity).ble.map(\.transmitter)) == [
            "BLE:ibeacon:\(Self.uuid):1:1", "BLE:ibeacon:\(Self.uuid):1:2", "BLE:eddystone:edd1ebeac04e5defa017:0123456789ab",
        ])
        #expect(Set(tree.keyed(by: .address).ble.map(\.transmitter)).count == 9)
    }

    @Test func theLocatorPoolsEveryAddressOfABeaconAndFindsThePoint() throws {
        let locator = BeaconLocator(registry: try BeaconRegistry(json: Self.registry, source: "sq"), metersPerUnit: 1)
        let fp = try Fingerprint(id: "d", text: Self.rotatingBody(at: (3, 4)), names: TransmitterNames())
        let r = try #require(locator.locate(fp))
        #expect(r.beacons.map(\.entry).sorted() == [0, 1, 2])
        #expect(abs(r.x - 3) < 0.5 && abs(r.y - 4) < 0.5, "at (\(r.x), \(r.y))")
        // Keyed by identity first, the same beacons are found.
        #expect(locator.locate(fp.keyed(by: .identity))?.beacons.count == 3)
        // Without the identities (what matching by address alone saw) no registry beacon is heard.
        var bare = fp
        bare.bleIdentities = [:]
        #expect(locator.locate(bare) == nil)
    }

    @Test func healthCountsEveryAddressOfABeaconAndItsTelemetry() throws {
        let registry = try BeaconRegistry(json: Self.registry, source: "sq")
        let seen = BeaconSighting.reports(in: Self.rotatingBody(at: (3, 4)), registries: [registry])
        #expect(seen.keys.sorted() == registry.entries.map(\.id).sorted())
        #expect(seen["ibeacon:\(Self.uuid):1:1"]?.count == 3)
        // The TLM frame counts for the Eddystone beacon through the address that advertised its UID.
        let eddystone = try #require(seen["eddystone:edd1ebeac04e5defa017:0123456789ab"])
        #expect(eddystone.count == 4 && eddystone.last?.batteryMilliVolts == 2400)
        let health = BeaconHealth.assess(map: "SQ", registry: registry, sightings: seen,
                                         now: try #require(ISOTime.milliseconds("2026-11-21T10:00:00.000Z")))
        #expect(health.map(\.reports) == [3, 3, 4])
        #expect(health[2].alerts == [.lowBattery(milliVolts: 2400)])
    }

    @Test func theTrackerSeesARotatingBeaconAsOneBeacon() throws {
        let registry = try BeaconRegistry(json: Self.registry, source: "sq")
        let model = MapModel(id: "SQ", floor: nil, metersPerUnit: 1, radiomap: nil, locator: BeaconLocator(registry: registry, metersPerUnit: 1))
        var tracker = Tracker(models: [model], fixedMap: "SQ", options: Tracker.Options(method: .beacons, windowMs: 2000))
        var withoutIdentity = tracker
        let corners: [(BeaconIdentity, Double, Double)] = [
            (.iBeacon(uuid: Self.uuid, major: 1, minor: 1), 0, 0), (.iBeacon(uuid: Self.uuid, major: 1, minor: 2), 10, 0),
            (.eddystoneUID(namespace: "edd1ebeac04e5defa017", instance: "0123456789ab"), 0, 10),
        ]
        var last: TrackPoint?, lastBare: TrackPoint?
        for ms in stride(from: 100, through: 6000, by: 100) {
            for (i, c) in corners.enumerated() {
                let d = ((3 - c.1) * (3 - c.1) + (4 - c.2) * (4 - c.2)).squareRoot()
                // A new random address every second.
                let address = String(format: "C%d:00:00:00:%02X:%02X", i, ms / 1000, i)
                tracker.addBLE(address: address, rssi: Double(Self.rssi(d)), timeMs: ms, identity: c.0)
                withoutIdentity.addBLE(address: address, rssi: Double(Self.rssi(d)), timeMs: ms)
            }
            if ms % 1000 == 0 {
                last = tracker.position(atMs: ms) ?? last
                lastBare = withoutIdentity.position(atMs: ms) ?? lastBare
            }
        }
        let p = try #require(last)
        #expect(p.transmittersUsed == 3)
        #expect(abs(p.x - 3) < 1 && abs(p.y - 4) < 1, "at (\(p.x), \(p.y))")
        #expect(lastBare == nil, "by address alone no registry beacon is heard")
    }

    // MARK: the minimum trusted RSSI

    @Test func readingsWeakerThanTheMinimumAreLeftOutOfBLEOnly() {
        var fp = Fingerprint(id: "f", level: "", x: 0, y: 0,
                             ble: [.init(transmitter: "BLE:a", rssi: -70, time: 0), .init(transmitter: "BLE:a", rssi: -91, time: 1),
                                   .init(transmitter: "BLE:b", rssi: -95, time: 2)],
                             wifi: [.init(transmitter: "WIFI:c", rssi: -95, time: 0)])
        fp = fp.droppingBLE(weakerThan: -90)
        #expect(fp.ble.map(\.rssi) == [-70])
        #expect(fp.wifi.count == 1)
        #expect(fp.droppingBLE(weakerThan: nil) == fp)
    }

    @Test func theTrackersMinimumLeavesAWeakBeaconOut() throws {
        let registry = try BeaconRegistry(json: Self.registry, source: "sq")
        let model = MapModel(id: "SQ", floor: nil, metersPerUnit: 1, radiomap: nil, locator: BeaconLocator(registry: registry, metersPerUnit: 1))
        var options = Tracker.Options(method: .beacons, windowMs: 2000)
        var all = Tracker(models: [model], fixedMap: "SQ", options: options)
        options.minBLERSSI = -75
        var strong = Tracker(models: [model], fixedMap: "SQ", options: options)
        for ms in stride(from: 100, through: 2000, by: 100) {
            for (address, rssi) in [("AA:00:00:00:00:01", -65.0), ("AA:00:00:00:00:02", -70.0), ("AA:00:00:00:00:03", -80.0)] {
                let id: BeaconIdentity = address.hasSuffix("1") ? .iBeacon(uuid: Self.uuid, major: 1, minor: 1)
                    : address.hasSuffix("2") ? .iBeacon(uuid: Self.uuid, major: 1, minor: 2)
                    : .eddystoneUID(namespace: "edd1ebeac04e5defa017", instance: "0123456789ab")
                all.addBLE(address: address, rssi: rssi, timeMs: ms, identity: id)
                strong.addBLE(address: address, rssi: rssi, timeMs: ms, identity: id)
            }
        }
        #expect(all.position(atMs: 2000)?.transmittersUsed == 3)
        // Two beacons left: no trilateration.
        #expect(strong.position(atMs: 2000) == nil)
    }
}
