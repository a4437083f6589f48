import Foundation
import Testing

/// Beacons registered by iBeacon/Eddystone identity, matched whatever address
/// they advertise from, and `--min-rssi` (issue 58 items 1 and 3), through the binary.
@Suite struct BeaconIdentityCLITests {
    static let uuid = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    func write(_ fp: FprintRunner, _ name: String, _ text: String) throws -> String {
        let file = fp.home.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    var registryPath: (FprintRunner) -> URL { { $0.home.appendingPathComponent("config/fprint/beacons/J2NP.json") } }

    /// Three beacons known by what they advertise, in metres on J2NP (0.02 m a map unit), and a fourth far off.
    static let sheet = """
        name,uuid,major,minor,namespace,instance,x_m,y_m,tx power
        door,b9407f30f5f8466eaff925556b57fe6d,1,10,,,10,10,-59
        lab,B9407F30-F5F8-466E-AFF9-25556B57FE6D,1,11,,,30,10,-59
        hall,,,,EDD1EBEAC04E5DEFA017,0123456789AB,10,30,-59
        far,B9407F30-F5F8-466E-AFF9-25556B57FE6D,1,12,,,40,50,-59

        """

    /// (frame JSON, position in metres) of the sheet's beacons.
    static var frames: [(frame: [String: Any], x: Double, y: Double)] { [
        (["type": "ibeacon", "uuid": uuid, "major": 1, "minor": 10], 10, 10),
        (["type": "ibeacon", "uuid": uuid, "major": 1, "minor": 11], 30, 10),
        (["type": "eddystone-uid", "namespace": "edd1ebeac04e5defa017", "instance": "0123456789ab"], 10, 30),
    ] }

    static func rssi(_ d: Double) -> Int { Int((-59 - 20 * log10(d)).rounded()) }

    /// A J2NP document at (x, y) metres whose beacons each report from three
    /// random addresses (`salt` makes them the document's own); the "far"
    /// beacon heard weakly (−95 dBm: it would be 63 m away, it is 40 m) unless `far` is false.
    static func document(x: Double, y: Double, minute: Int, salt: Int, far: Bool = true) -> [String: Any] {
        var scans: [[String: Any]] = []
        for (b, beacon) in frames.enumerated() {
            let d = ((x - beacon.x) * (x - beacon.x) + (y - beacon.y) * (y - beacon.y)).squareRoot()
            for rotation in 0..<3 {
                scans.append(["address": String(format: "%02X:%02X:%02X:00:00:01", 0xC0 + b, salt, rotation), "addressType": "random",
                              "beacon": beacon.frame, "rssi": rssi(d), "time": rotation * 1000 + b])
            }
        }
        // The Eddystone beacon's telemetry comes from its last address without an identity of its own.
        scans.append(["address": String(format: "C2:%02X:02:00:00:01", salt), "rssi": -70, "time": 2500,
                      "beacon": ["type": "eddystone-tlm", "batteryMilliVolts": 2400]])
        if far {
            for t in 0..<3 {
                scans.append(["address": String(format: "CF:%02X:%02X:00:00:01", salt, t), "rssi": -95, "time": t * 1000 + 9,
                              "beacon": ["type": "ibeacon", "uuid": uuid, "major": 1, "minor": 12]])
            }
        }
        return ["x": Int((x / 0.02).rounded()), "y": Int((y / 0.02).rounded()), "level": "J2NP", "mode": "static", "type": "scan",
                "createdAt": String(format: "2026-11-20T10:%02d:00.000Z", minute), "wifiScans": [], "bleScans": scans]
    }

    @Test func aSheetOfIdentitiesBecomesARegistryWithoutAddressesThatLocateAndHealthMatch() async throws {
        let fp = try FprintRunner()
        let imported = try await fp.run(["beacons", "import", try write(fp, "ids.csv", Self.sheet), "--map", "J2NP"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: registryPath(fp))) as? [[String: Any]])
        #expect(written.count == 4 && written.allSatisfy { $0["mac"] == nil })
        #expect(written[0]["uuid"] as? String == Self.uuid && written[0]["major"] as? Int == 1 && written[0]["minor"] as? Int == 10)
        #expect(written[2]["namespace"] as? String == "edd1ebeac04e5defa017" && written[2]["instance"] as? String == "0123456789ab")

        let listed = try await fp.run(["beacons", "--map", "J2NP", "--json"]).lines.map(fp.json)
        #expect(listed.compactMap { $0["id"] as? String } == [
            "ibeacon:\(Self.uuid):1:10", "ibeacon:\(Self.uuid):1:11", "eddystone:edd1ebeac04e5defa017:0123456789ab",
            "ibeacon:\(Self.uuid):1:12",
        ])

        try await importDocuments(fp, [("q", Self.document(x: 16, y: 18, minute: 0, salt: 1)),
                                       ("r", Self.document(x: 25, y: 25, minute: 1, salt: 2))])
        // Every address of a beacon counts for it: the three beacons and the far one are used.
        let located = try await fp.run(["locate", "q", "--json"])
        #expect(located.status == 0, "\(located.stderr)")
        let beacons = try #require(try fp.json(located.stdout)["beacons"] as? [String: Any])
        let used = try #require(beacons["used"] as? [[String: Any]])
        #expect(used.count == 4, "\(used)")
        #expect(Set(used.compactMap { $0["mac"] as? String }).contains("eddystone:edd1ebeac04e5defa017:0123456789ab"))
        let allError = try #require(beacons["error"] as? Double)

        // --min-rssi leaves the far beacon's weak reports out, and the position comes from the three true ranges
        // (whole-dBm RSSI: about 0.5 m off; with the far beacon's 63 m range about 15 m).
        let trusted = try await fp.run(["locate", "q", "--json", "--min-rssi=-90"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        let strong = try #require(try fp.json(trusted.stdout)["beacons"] as? [String: Any])
        #expect((strong["used"] as? [Any])?.count == 3)
        let strongError = try #require(strong["error"] as? Double)
        #expect(strongError < 1.5 && allError > 5, "\(strongError) m with --min-rssi, \(allError) m without")

        // Health: each beacon's reports from all its addresses, the TLM battery by the address that advertised the UID.
        let health = try await fp.run(["beacons", "--health", "--map", "J2NP", "--json"])
        #expect(health.status == 0, "\(health.stderr)")
        let rows = try health.lines.map(fp.json)
        #expect(rows.map { $0["reports"] as? Int } == [6, 6, 8, 6], "\(rows)")
        let hall = try #require(rows.first { $0["mac"] as? String == "eddystone:edd1ebeac04e5defa017:0123456789ab" })
        #expect(hall["batteryMilliVolts"] as? Int == 2400)
        #expect((hall["alerts"] as? [[String: Any]])?.contains { $0["kind"] as? String == "low-battery" } == true)
        #expect(hall["beacon"] as? String == "eddystone:edd1ebeac04e5defa017:0123456789ab")
        let table = try await fp.run(["beacons", "--health", "--map", "J2NP"])
        #expect(table.lines.first?.contains("BEACON") == true && !(table.lines.first?.contains("MAC") ?? true), "\(table.stdout)")
        #expect(table.stdout.contains("eddystone:edd1ebeac04e5defa017:0123456789ab"))
    }

    @Test func mergingASheetReplacesTheEntryWithTheSameIdentity() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["beacons", "import", try write(fp, "ids.csv", Self.sheet), "--map", "J2NP"]).status == 0)
        let moved = "uuid,major,minor,x,y,name\n\(Self.uuid.lowercased()),1,10,700,700,door moved\n"
        let r = try await fp.run(["beacons", "import", try write(fp, "moved.csv", moved), "--map", "J2NP", "--merge", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["replaced"] as? Int == 1 && out["added"] as? Int == 0 && out["kept"] as? Int == 3)
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: registryPath(fp))) as? [[String: Any]])
        #expect(written.count == 4 && written[0]["name"] as? String == "door moved" && written[0]["x"] as? Double == 700)
    }

    /// Each bad identity is named with its line; the same identity spelt
    /// another way is a duplicate; nothing is written.
    @Test func everyBadIdentityRowIsNamedAndNothingIsWritten() async throws {
        let fp = try FprintRunner()
        let sheet = try write(fp, "bad.csv", """
            name,mac,uuid,major,minor,namespace,instance,x,y
            a,,b9407f30f5f8466eaff925556b57fe6d,1,10,,,100,100
            b,,B9407F30-F5F8-466E-AFF9-25556B57FE6D,1,10,,,200,200
            c,,B9407F30-F5F8-466E-AFF9-25556B57FE6,1,11,,,200,200
            d,,B9407F30-F5F8-466E-AFF9-25556B57FE6D,1,65536,,,200,200
            e,,,,,EDD1EBEAC04E5DEFA0,0123456789AB,300,300
            f,,,,,EDD1EBEAC04E5DEFA017,0123456789ab,300,300
            g,,,,,0xedd1ebeac04e5defa017,0123456789AB,400,400
            h,,,,,,,500,500
            i,,B9407F30-F5F8-466E-AFF9-25556B57FE6D,1,,,,500,500
            j,,,,,EDD1EBEAC04E5DEFA017,,500,500

            """)
        let r = try await fp.run(["beacons", "import", sheet, "--map", "J2NP"])
        #expect(r.status == 65, "\(r.stderr)")
        let expected = [
            "bad.csv:3: iBeacon \(Self.uuid) 1/10 is already on line 2",
            "bad.csv:4: uuid \"B9407F30-F5F8-466E-AFF9-25556B57FE6\" is not a UUID",
            "bad.csv:5: minor \"65536\" is not a whole number from 0 to 65535",
            "bad.csv:6: Eddystone namespace \"EDD1EBEAC04E5DEFA0\" is not 10 bytes of hex",
            "bad.csv:8: Eddystone edd1ebeac04e5defa017/0123456789ab is already on line 7",
            "bad.csv:9: no address and no iBeacon uuid/major/minor or Eddystone namespace/instance",
            "bad.csv:10: an iBeacon id needs uuid, major and minor; only uuid and major given",
            "bad.csv:11: Eddystone instance \"\" is not 6 bytes of hex",
        ]
        for line in expected { #expect(r.stderr.contains(line), "\(line)\n\(r.stderr)") }
        #expect(!r.stderr.contains("bad.csv:2:") && !r.stderr.contains("bad.csv:7:"), "the good rows are not blamed")
        #expect(r.stderr.contains("8 problems; nothing written"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: registryPath(fp).path))
    }

    /// A stored walk replayed by `track`: its beacons rotate their addresses in
    /// every document, and the registry knows them by identity alone.
    @Test func trackReplaysAWalkOfRotatingBeaconsAsThreeBeacons() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["beacons", "import", try write(fp, "ids.csv", Self.sheet), "--map", "J2NP"]).status == 0)
        try await importDocuments(fp, (1...4).map { seq in
            var d = Self.document(x: 16, y: 18, minute: seq, salt: seq, far: false)
            let start = (seq - 1) * 3000
            d["mode"] = "walk"
            d["sessionId"] = "rotating-walk"
            d["seq"] = seq
            d["window"] = ["startMs": start, "endMs": start + 3000, "start": "", "end": ""]
            return ("w\(seq)", d)
        })
        let r = try await fp.run(["track", "--session", "rotating-walk", "--map", "J2NP", "--method", "beacons", "--truth", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json).filter { $0["summary"] == nil }
        #expect(!rows.isEmpty, "\(r.stderr)")
        #expect(rows.allSatisfy { $0["transmitters_used"] as? Int == 3 }, "\(rows)")
        #expect(rows.allSatisfy { ($0["error_m"] as? Double ?? 99) < 2 }, "\(rows)")
    }

    /// An alert rule's beacon given by its advertised identity (any spelling)
    /// watches that beacon's reports from every address.
    @Test func anAlertOnABeaconsIdentityCountsItsRotatingAddresses() async throws {
        var fp = try FprintRunner()
        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-20T10:30:00.000Z"
        let added = try await fp.run(["alerts", "add", "weak-door", "rssi < -70 dBm",
                                      "--beacon", "ibeacon:b9407f30f5f8466eaff925556b57fe6d:1:10"])
        #expect(added.status == 0, "\(added.stderr)")
        try await importDocuments(fp, [("a", Self.document(x: 16, y: 18, minute: 0, salt: 1, far: false)),
                                       ("b", Self.document(x: 16, y: 18, minute: 1, salt: 2, far: false))])
        let r = try await fp.run(["alerts", "--json"])
        #expect(r.status == 3, "\(r.stderr)")
        let active = try r.lines.map(fp.json)
        #expect(active.map { $0["subject"] as? String } == ["beacon ibeacon:\(Self.uuid):1:10"], "\(active)")
        // 10 m from the door: −79 dBm by the law, the median of its three addresses'
        // reports; raised by the first document (no hold).
        #expect(active.first?["worst"] as? Double == -79)
        #expect((active.first?["values"] as? [[String: Any]])?.map { $0["document"] as? String } == ["a"])
        let bad = try await fp.run(["alerts", "add", "x", "rssi < -70 dBm", "--beacon", "ibeacon:nope:1:2"])
        #expect(bad.status == 64 && bad.stderr.contains("is not a MAC address (AA:BB:CC:DD:EE:FF) or a beacon identity"), "\(bad.stderr)")
    }

    /// eval's BLE transmitters: by address (the default) documents whose beacons
    /// rotate their addresses share none; by identity they share all three.
    /// --min-rssi above every reading leaves no BLE to position with.
    @Test func evalKeysBeaconsByIdentityWhenAskedAndDropsWeakReadings() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, [
            ("a", Self.document(x: 16, y: 18, minute: 0, salt: 1, far: false)),
            ("b", Self.document(x: 25, y: 25, minute: 1, salt: 2, far: false)),
            ("c", Self.document(x: 12, y: 20, minute: 2, salt: 3, far: false)),
        ])
        func unlocalised(_ extra: [String]) async throws -> Int? {
            let r = try await fp.run(["eval", "--set", "ble", "--estimator", "nn", "--json"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return (try fp.json(r.stdout)["results"] as? [[String: Any]])?.first?["unlocalised"] as? Int
        }
        #expect(try await unlocalised([]) == 3)
        #expect(try await unlocalised(["--ble-key", "identity"]) == 0)
        #expect(try await unlocalised(["--ble-key", "identity", "--min-rssi=-60"]) == 3)
        let bad = try await fp.run(["eval", "--min-rssi", "5"])
        #expect(bad.status == 64 && bad.stderr.contains("--min-rssi must be a dBm value ≤ 0"), "\(bad.stderr)")
    }
}
