import Foundation
import Testing

/// `fprint beacons import FILE.csv --map ID`: a deployed-beacon sheet into the
/// map's registry in the user's config folder, which then wins over the shipped one.
@Suite struct BeaconImportCLITests {
    /// `$XDG_CONFIG_HOME/fprint/beacons/<map>.json` of the runner.
    func registry(_ fp: FprintRunner, _ map: String) -> URL {
        fp.home.appendingPathComponent("config/fprint/beacons/\(map).json")
    }

    func write(_ fp: FprintRunner, _ name: String, _ text: String) throws -> String {
        let file = fp.home.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    func entries(_ file: URL) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [Any]).compactMap { $0 as? [String: Any] }
    }

    func mode(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
    }

    /// Headers in another case and order, aliases, a quoted name with a comma,
    /// an unknown column, a blank spacer row, positions in metres by header.
    static let metresSheet = """
        Name,MAC Address,X_m,Y_m,Tx Power (dBm),UUID,Major,Minor,Notes
        "Hall, north",db-d8-0e-71-e0-fd,12.5,3,-66,b9407f30-f5f8-466e-aff9-25556b57fe6d,36233,15276,above the door
        Lab 2,DD70EB940BD5,20,10.25,-68 dBm,,,,
        ,,,,,,,,
        Stairs,CC:5F:97:3D:AA:D8,0,59.5,,,,,

        """

    @Test func aGoodSheetBecomesTheMapsRegistryInTheUsersFolder() async throws {
        let fp = try FprintRunner()
        let sheet = try write(fp, "deployed.csv", Self.metresSheet)
        let r = try await fp.run(["beacons", "import", sheet, "--map", "J2NP"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("deployed.csv: 3 rows, 3 beacons (3 placed in metres, at 0.02 m a map unit)"), "\(r.stderr)")
        #expect(r.stderr.contains("columns left out: Notes"), "\(r.stderr)")
        let file = registry(fp, "J2NP")
        #expect(r.stderr.contains("wrote 3 beacons to \(file.path)"), "\(r.stderr)")
        #expect(r.stderr.contains("it is used instead of") && r.stderr.contains("Config/beacons/J2NP.json"), "\(r.stderr)")
        #expect(try mode(file.path) == 0o600)
        #expect(try mode(file.deletingLastPathComponent().path) == 0o700)
        #expect(try mode(file.deletingLastPathComponent().deletingLastPathComponent().path) == 0o700)
        let written = try entries(file)
        #expect(written.map { $0["mac"] as? String } == ["DB:D8:0E:71:E0:FD", "DD:70:EB:94:0B:D5", "CC:5F:97:3D:AA:D8"])
        // 45 m = 2,250 units: 12.5 m is 625 units, 10.25 m is 512.5.
        #expect(written.map { $0["x"] as? Double } == [625, 1000, 0])
        #expect(written.map { $0["y"] as? Double } == [150, 512.5, 2975])
        #expect(written.map { $0["name"] as? String } == ["Hall, north", "Lab 2", "Stairs"])
        #expect(written.map { $0["measuredPower"] as? Double } == [-66, -68, nil])
        #expect(written[0]["uuid"] as? String == "B9407F30-F5F8-466E-AFF9-25556B57FE6D")
        #expect(written[0]["major"] as? Int == 36233 && written[0]["minor"] as? Int == 15276)
        #expect(written[1]["uuid"] == nil && written.allSatisfy { $0["floor"] as? String == "J2NP" })
        // Nothing but the registry is left in the folder (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == ["J2NP.json"])

        // `fprint beacons` lists the imported registry, not the shipped one, and says where it came from.
        let list = try await fp.run(["beacons", "--map", "J2NP", "--json"])
        #expect(list.status == 0, "\(list.stderr)")
        let rows = try list.lines.map { try fp.json($0) }
        #expect(rows.map { $0["mac"] as? String } == written.map { $0["mac"] as? String })
        #expect(rows.allSatisfy { $0["registry"] as? String == file.path })
        #expect(rows.first?["name"] as? String == "Hall, north")
        let table = try await fp.run(["beacons"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stderr.contains("J2NP: 3 beacons from \(file.path)"), "\(table.stderr)")
        #expect(table.stderr.contains("J3NP: 17 beacons from ") && table.stderr.contains("Config/beacons/J3NP.json"), "\(table.stderr)")
        #expect(table.lines.contains { $0.hasPrefix("J2NP  DB:D8:0E:71:E0:FD") && $0.hasSuffix("Hall, north") }, "\(table.stdout)")
    }

    /// Semicolons and decimal commas (a spreadsheet in a European locale), a
    /// unit column, --metres for the rows that give none, and --json.
    @Test func unitColumnMetresFlagAndSemicolonsWithJSON() async throws {
        let fp = try FprintRunner()
        let sheet = try write(fp, "eu.csv", """
            mac;x;y;unit;measured power
            AA:00:00:00:00:01;1000;500;units;-70
            AA:00:00:00:00:02;12,5;4;m;-59
            AA:00:00:00:00:03;2;3;;

            """)
        let r = try await fp.run(["beacons", "import", sheet, "--map", "J1NP", "--metres", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["written"] as? Bool == true && out["rows"] as? Int == 3 && out["added"] as? Int == 3)
        #expect(out["convertedFromMetres"] as? Int == 2)
        let beacons = try #require(out["beacons"] as? [[String: Any]])
        #expect(beacons.map { $0["x"] as? Double } == [1000, 625, 100])
        #expect(beacons.map { $0["y"] as? Double } == [500, 200, 150])
        #expect(try entries(registry(fp, "J1NP")).count == 3)
    }

    /// One sheet with a row of every kind of problem: each is named with its
    /// line, the exit is 65, and nothing is written (not even the folder).
    @Test func everyBadRowIsNamedWithItsLineAndNothingIsWritten() async throws {
        let fp = try FprintRunner()
        let sheet = try write(fp, "bad.csv", """
            address,x,y,tx power,uuid,major,minor,namespace,instance
            DB:D8:0E:71:E0:FD,100,200,-66,,,,,
            DB:D8:0E:71:E0:ZZ,100,200,,,,,,
            AA:00:00:00:00:02,100,200,,B9407F30-F5F8-466E-AFF9-25556B57FE6D,70000,1,,
            AA:00:00:00:00:03,2600,200,,,,,,
            db:d8:0e:71:e0:fd,300,300,,,,,,
            ,100,200,,,,,,
            AA:00:00:00:00:04,100,200,4,,,,,
            AA:00:00:00:00:05,ten,200,,,,,,
            AA:00:00:00:00:06,100,200,,,,,00112233445566778899,0011
            AA:00:00:00:00:07,100,200,,not-a-uuid,1,2,,
            AA:00:00:00:00:08,100,200,,,,,,,extra
            AA:00:00:00:00:09,100,,,,,,,
            "AA:00:00:00:00:10,1,2

            """)
        let r = try await fp.run(["beacons", "import", sheet, "--map", "J2NP"])
        #expect(r.status == 65, "\(r.stderr)")
        // The unclosed quote makes the whole file unreadable: that alone is said.
        #expect(r.stderr.contains("bad.csv:14: a quoted field is not closed"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("config/fprint").path))

        // Without the broken last line, every row's problem is named.
        let rows = try String(contentsOfFile: sheet, encoding: .utf8).split(separator: "\n").dropLast().joined(separator: "\n")
        let fixed = try write(fp, "bad.csv", rows + "\n")
        let again = try await fp.run(["beacons", "import", fixed, "--map", "J2NP"])
        #expect(again.status == 65, "\(again.stderr)")
        let expected = [
            "bad.csv:3: address \"DB:D8:0E:71:E0:ZZ\" is not a MAC address",
            "bad.csv:4: major \"70000\" is not a whole number from 0 to 65535",
            "bad.csv:5: (2600, 200) is outside map J2NP: x 0–2500, y 0–3000 map units (50 × 60 m)",
            "bad.csv:6: address DB:D8:0E:71:E0:FD is already on line 2",
            "bad.csv:7: no address and no iBeacon uuid/major/minor or Eddystone namespace/instance",
            "bad.csv:8: tx power \"4\" is not the RSSI at 1 m in dBm",
            "bad.csv:9: x \"ten\" is not a number",
            "bad.csv:10: Eddystone instance \"0011\" is not 6 bytes of hex",
            "bad.csv:11: uuid \"not-a-uuid\" is not a UUID",
            "bad.csv:12: 10 fields, the header names 9",
            "bad.csv:13: no position: x and y are both needed",
        ]
        for line in expected { #expect(again.stderr.contains(line), "\(line)\n\(again.stderr)") }
        #expect(again.stderr.contains("error: \(fixed): 11 problems; nothing written"), "\(again.stderr)")
        #expect(!again.stderr.contains("bad.csv:2:"), "the good row is not blamed")
        #expect(!FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("config/fprint").path))
    }

    @Test(arguments: [
        ("name,x,y\ndoor,3,4\n",
         "ids.csv:1: no column names the beacons: give an address (or mac) column, or iBeacon uuid/major/minor, or Eddystone namespace/instance"),
        ("mac,x\nAA:00:00:00:00:01,3\n", "ids.csv:1: no y column (y in map units, or y_m in metres)"),
        ("mac,x,y,x_m\nAA:00:00:00:00:01,3,4,5\n", "ids.csv:1: give x and y either in map units (x, y) or in metres"),
        ("mac,mac address,x,y\n", "ids.csv:1: columns 1 and 2 both give address"),
        ("mac,x,y\n", "ids.csv: no beacons: the sheet has a header and no rows"),
    ])
    func sheetsThatCannotBeReadAtAllAreNamed(text: String, message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["beacons", "import", try write(fp, "ids.csv", text), "--map", "J2NP"])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: registry(fp, "J2NP").path))
    }

    @Test func anExistingRegistryIsKeptUnlessReplacedOrMerged() async throws {
        let fp = try FprintRunner()
        let first = try write(fp, "a.csv", "mac,x,y,name\nAA:00:00:00:00:01,10,20,one\nAA:00:00:00:00:02,30,40,two\n")
        let second = try write(fp, "b.csv", "mac,x,y,name\nAA:00:00:00:00:02,50,60,moved\nAA:00:00:00:00:03,70,80,three\n")
        #expect(try await fp.run(["beacons", "import", first, "--map", "J3NP"]).status == 0)
        let file = registry(fp, "J3NP")
        let before = try Data(contentsOf: file)

        let refused = try await fp.run(["beacons", "import", second, "--map", "J3NP"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("error: \(file.path) exists: --replace overwrites it, --merge adds the sheet's beacons to it"))
        #expect(try Data(contentsOf: file) == before)

        let dry = try await fp.run(["beacons", "import", second, "--map", "J3NP", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("dry run: nothing written; would write 2 beacons to \(file.path) (it exists: the import needs --replace or --merge)"), "\(dry.stderr)")
        #expect(dry.lines.count == 3 && dry.lines[1].hasPrefix("AA:00:00:00:00:02  moved"), "\(dry.stdout)")
        #expect(try Data(contentsOf: file) == before)

        let merged = try await fp.run(["beacons", "import", second, "--map", "J3NP", "--merge"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("1 added, 1 replaced, 1 kept"), "\(merged.stderr)")
        #expect(try entries(file).map { $0["name"] as? String } == ["one", "moved", "three"])

        let replaced = try await fp.run(["beacons", "import", first, "--map", "J3NP", "--replace"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try Data(contentsOf: file) == before)

        let both = try await fp.run(["beacons", "import", first, "--map", "J3NP", "--replace", "--merge"])
        #expect(both.status == 64 && both.stderr.contains("--replace and --merge exclude each other"), "\(both.stderr)")
        let noMap = try await fp.run(["beacons", "import", first, "--map", "NOPE"])
        #expect(noMap.status == 66 && noMap.stderr.contains("unknown map 'NOPE'"), "\(noMap.stderr)")
        let missing = try await fp.run(["beacons", "import", "nope.csv", "--map", "J3NP"])
        #expect(missing.status == 66 && missing.stderr.contains("nope.csv: no such file"), "\(missing.stderr)")
    }

    @Test func aDryRunWritesNothingAtAll() async throws {
        let fp = try FprintRunner()
        let sheet = try write(fp, "deployed.csv", Self.metresSheet)
        let r = try await fp.run(["beacons", "import", sheet, "--map", "J2NP", "--dry-run", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["written"] as? Bool == false && (out["beacons"] as? [Any])?.count == 3)
        #expect(!FileManager.default.fileExists(atPath: fp.home.appendingPathComponent("config/fprint").path))
    }

    /// The imported registry is the one `locate` and `coverage` use: a sheet of
    /// the five J3NP beacons nearest the point, in metres, places a measurement
    /// from those five alone, about where the shipped 17 do.
    @Test func locateAndCoverageUseTheImportedRegistry() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J3NP", "--x", "1000", "--y", "1200", "--simulate", "--fast",
                                  "--duration", "5", "--seed", "9"])
        let id = try #require(m.lines.first)
        let shipped = try entries(FprintRunner.repositoryRoot.appendingPathComponent("Config/beacons/J3NP.json"))
        func distance(_ b: [String: Any]) -> Double {
            hypot((b["x"] as? Double ?? 0) - 1000, (b["y"] as? Double ?? 0) - 1200)
        }
        let nearest = shipped.sorted { distance($0) < distance($1) }.prefix(5)
        let lines = nearest.map { b in
            "\(b["mac"]!),\((b["x"] as! Double) * 0.02),\((b["y"] as! Double) * 0.02),\(b["measuredPower"] ?? "")"
        }
        let sheet = try write(fp, "near.csv", (["address,x_m,y_m,tx power"] + lines).joined(separator: "\n") + "\n")
        #expect(try await fp.run(["beacons", "import", sheet, "--map", "J3NP"]).status == 0)

        let r = try await fp.run(["locate", String(id.prefix(8)), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let beacons = try #require(try fp.json(r.stdout)["beacons"] as? [String: Any])
        let used = try #require(beacons["used"] as? [[String: Any]])
        #expect(used.count == 5, "the shipped registry would give 6")
        #expect(Set(used.compactMap { $0["mac"] as? String }) == Set(nearest.compactMap { $0["mac"] as? String }))
        #expect((beacons["error"] as? Double ?? 99) < 20)

        let coverage = try await fp.run(["coverage", "--map", "J3NP", "--json"])
        #expect(coverage.status == 0, "\(coverage.stderr)")
        let point = try fp.json(try #require(coverage.lines.first))
        let heard = try #require(point["heard"] as? [[String: Any]])
        #expect(!heard.isEmpty && heard.allSatisfy { h in nearest.contains { "BLE:" + ($0["mac"] as? String ?? "").lowercased() == h["id"] as? String } },
                "\(heard)")
    }
}
