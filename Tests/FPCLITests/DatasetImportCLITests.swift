import FPTestSupport
import Foundation
import Testing

/// The hand-made fixtures in the public datasets' shapes (`Tests/FPCLITests/Fixtures`).
enum DatasetFixtures {
    static func path(_ name: String) -> String {
        FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCLITests/Fixtures/\(name)").path
    }

    static let flatMapping = ["--dataset", "ble-flat-robot", "--radio", "ble", "--transmitter-prefix", "rssi_", "--x-column", "x",
                              "--y-column", "y", "--time-column", "ts"]
    static let indoorLocMapping = ["--dataset", "UJIIndoorLoc", "--transmitter-prefix", "WAP", "--not-heard", "100",
                                   "--x-column", "LONGITUDE", "--y-column", "LATITUDE", "--floor-column", "FLOOR",
                                   "--time-column", "TIMESTAMP", "--map", "UJIIndoorLoc-{BUILDINGID}-{floor}"]
}

extension FprintRunner {
    /// Every stored document as `list --json` gives it.
    func listed() async throws -> [[String: Any]] {
        let r = try await run(["list", "--all", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return try r.lines.map { try json($0) }
    }

    /// A stored document's body (`show --json`).
    func shown(_ id: String) async throws -> [String: Any] {
        let r = try await run(["show", id, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        return try json(r.stdout)
    }
}

@Suite struct DatasetImportCLITests {
    @Test func theUJILayoutOnceAndOnlyOnce() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["import", DatasetFixtures.path("uji-mini"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(summary.first?["format"] as? String == "uji-longterm" && summary.first?["dataset"] as? String == "uji-mini")
        #expect(summary.first?["imported"] as? Int == 20 && summary.first?["campaigns"] as? Int == 4)
        let listed = try await fp.listed()
        #expect(listed.count == 20)
        #expect(Set(listed.compactMap { $0["level"] as? String }) == ["UJI-LIB-3", "UJI-LIB-5"])
        // The second test fingerprint of month 02, as stored.
        let id = try #require(listed.compactMap { $0["id"] as? String }.first { $0.hasSuffix(":uji-mini:02:tst01:2") })
        let body = try await fp.shown(id)
        #expect(body["tags"] as? [String: String] == ["month": "02", "campaign": "tst01", "set": "test", "point": "201200201"])
        let imported = try #require(body["imported"] as? [String: Any])
        #expect(imported["file"] as? String == "db/02/tst01rss.csv" && imported["row"] as? Int == 2 && imported["line"] as? Int == 2)
        #expect(imported["dataset"] as? String == "uji-mini" && imported["time"] as? String == "20160705102016233")
        #expect(body["createdAt"] as? String == "2016-07-05T08:20:16.233Z")  // CEST
        let providers = try #require(body["providers"] as? [String: [String: Any]])
        #expect(providers["wifi"]?["simulated"] as? Bool == false && body["deviceId"] == nil && body["hostname"] == nil)
        let scans = try #require(body["wifiScans"] as? [[String: Any]])
        #expect(scans.compactMap { $0["mac"] as? String } == ["WAP001", "WAP002", "WAP003"])
        #expect(scans.compactMap { $0["rssi"] as? Int } == [-74, -54, -80])
        // Again: the same ids, nothing new.
        let again = try await fp.run(["import", DatasetFixtures.path("uji-mini")])
        #expect(again.status == 0 && again.stderr.contains("imported 0, already present 20"), "\(again.stderr)")
        #expect(try await fp.listed().count == 20)
    }

    @Test func aBadCellImportsNothingAndSaysWhere() async throws {
        let fp = try FprintRunner()
        let root = fp.home.appendingPathComponent("uji")
        try FileManager.default.copyItem(atPath: DatasetFixtures.path("uji-mini"), toPath: root.path)
        // Month 02, the last campaign read: everything before it was already prepared.
        let rss = root.appendingPathComponent("db/02/tst01rss.csv")
        var lines = try String(contentsOf: rss, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[2] = "102,102,-64,-54,-70"
        try (lines.joined(separator: "\n") + "\n").write(to: rss, atomically: true, encoding: .utf8)
        let r = try await fp.run(["import", root.path])
        #expect(r.status == 65)
        #expect(r.stderr.hasSuffix("\nerror: \(root.path)/db/02/tst01rss.csv: line 3, column 1: RSSI '102' is outside -200…0 dBm\n"), "\(r.stderr)")
        #expect(try await fp.listed().isEmpty)
    }

    @Test func bleFlatRobotsTable() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping + ["--tag", "set=train"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("(table, dataset ble-flat-robot): 4 fingerprints") && r.stderr.contains("imported 4, already present 0"))
        let listed = try await fp.listed()
        let id = try #require(listed.compactMap { $0["id"] as? String }.first { $0.hasSuffix(":ble-flat-robot:ble-flat-mini:3") })
        let body = try await fp.shown(id)
        #expect(body["level"] as? String == "ble-flat-robot" && body["floor"] == nil)
        #expect(body["tags"] as? [String: String] == ["column1": "2", "heading": "0.5", "set": "train"])
        let position = try #require(body["position"] as? [String: Any])
        #expect(position["x"] as? Double == 1.5 && position["y"] as? Double == 2.25 && position["unit"] as? String == "m")
        #expect(body["x"] as? Int == 2 && body["y"] as? Int == 2)
        let scans = try #require(body["bleScans"] as? [[String: Any]])
        #expect(scans.compactMap { $0["address"] as? String } == ["rssi_2", "rssi_4", "rssi_5"])
        #expect(r.stdout.isEmpty)
        // `show` reads fractional RSSI too, to the whole dB (-70.5 → -71).
        let shown = try await fp.run(["show", id])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.lines.contains { $0.hasPrefix("  rssi_2 ") && $0.contains("  -71  -71  -71 ") }, "\(shown.stdout)")
    }

    @Test func ujiIndoorLocsSingleFile() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["import", DatasetFixtures.path("ujiindoorloc-mini.csv")] + DatasetFixtures.indoorLocMapping)
        #expect(r.status == 0, "\(r.stderr)")
        let listed = try await fp.listed()
        #expect(listed.compactMap { $0["level"] as? String }.sorted()
            == ["UJIIndoorLoc-0-0", "UJIIndoorLoc-0-3", "UJIIndoorLoc-1-2", "UJIIndoorLoc-1-2", "UJIIndoorLoc-1-2"])
        let first = try #require(listed.first { ($0["id"] as? String)?.hasSuffix(":1") == true }?["id"] as? String)
        let body = try await fp.shown(first)
        #expect(body["createdAt"] as? String == "2013-06-20T07:35:33.000Z" && body["floor"] as? Int == 2)
        #expect((body["tags"] as? [String: String])?["PHONEID"] == "23")
    }

    @Test func aBadRowOfATableImportsNothing() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("flat.csv")
        var text = try String(contentsOfFile: DatasetFixtures.path("ble-flat-mini.csv"), encoding: .utf8)
        text = text.replacingOccurrences(of: "1.5,0.5,2.25", with: "1.5,0.5,two")
        try text.write(to: file, atomically: true, encoding: .utf8)
        // The good file first: a later file's bad row stores neither.
        let r = try await fp.run(["import", DatasetFixtures.path("ble-flat-mini.csv"), file.path] + DatasetFixtures.flatMapping)
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(file.path): line 4, column 5: y 'two' is not a number\n")
        #expect(try await fp.listed().isEmpty)
    }

    @Test(arguments: [
        (["x.json", "--x-column", "x"], "--x-column applies to datasets (--format table or uji-longterm)"),
        (["t.csv", "--x-column", "x", "--y-column", "y"], "a table needs --transmitter-prefix (e.g. WAP or rssi_)"),
        (["t.csv", "--transmitter-prefix", "W"], "a table needs --x-column and --y-column"),
        (["t.csv", "--not-heard", "never"], "--not-heard: 'never' is neither a number nor 'empty'"),
        (["t.csv", "--tag", "month"], "--tag: 'month' is not key=value"),
        (["a.csv", "b.json"], "import files of one format at a time (found json, table)"),
    ])
    func optionsAreChecked(args: [String], message: String) async throws {
        try await FprintRunner.expectRefusal(["import"] + args, status: 64, message: message)
    }

    @Test func aMapTemplateTheTableCannotFill() async throws {
        try await FprintRunner.expectRefusal(
            ["import", DatasetFixtures.path("ble-flat-mini.csv")] + DatasetFixtures.flatMapping + ["--map", "flat-{floor}"],
            status: 64, message: "--map 'flat-{floor}': {floor} is not mapped (--floor-column)")
    }
}
