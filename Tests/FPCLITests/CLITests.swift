import FPCore
import FPStore
import Foundation
import Testing

@Suite(.serialized) struct MeasureAndWalkTests {
    @Test func simulatedWalkStoresOneDocumentPerWindowInOneSession() async throws {
        let fp = try FprintRunner()
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "7"])
        #expect(walk.status == 0, "\(walk.stderr)")
        // 4656 units at 50 units/s = 93.12 s: 46 full windows and a 1.12 s tail.
        #expect(walk.lines.count == 47)
        #expect(walk.stderr.contains("stored 47 documents of walk session"))

        let list = try await fp.run(["list", "--json"])
        #expect(list.status == 0)
        let rows = try list.lines.map(fp.json)
        #expect(rows.count == 47)
        #expect(Set(rows.compactMap { $0["sessionId"] as? String }).count == 1)
        #expect(rows.compactMap { $0["seq"] as? Int }.sorted() == Array(1...47))
        #expect(rows.first?["seq"] as? Int == 47)  // newest first

        let first = try #require(walk.lines.first)
        let show = try await fp.run(["show", first, "--json"])
        let doc = try fp.json(show.stdout)
        #expect(doc["_id"] as? String == first)
        #expect((doc["_rev"] as? String)?.hasPrefix("1-") == true)
        #expect(doc["mode"] as? String == "walk" && doc["scenarioId"] as? String == "scenarioJ1NP1")
        #expect(doc["x"] as? Int == 950 && doc["y"] as? Int == 1863)  // 50 units west of the start at 1 s
        #expect(doc["clock"] as? String == "virtual")
        let providers = try #require(doc["providers"] as? [String: [String: Any]])
        #expect(providers["ble"]?["simulated"] as? Bool == true)
        #expect((providers["ble"]?["source"] as? String)?.hasPrefix("simulated:") == true)
        let ble = try #require(doc["bleScans"] as? [[String: Any]])
        #expect(!ble.isEmpty && ble.allSatisfy { ($0["time"] as? Int).map { (0...2000).contains($0) } == true })
    }

    @Test func staticMeasurementShowsSectionsInOrder() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J3NP", "--x", "1441", "--y", "303", "--simulate", "--fast",
                            "--duration", "5"])
        #expect(m.status == 0, "\(m.stderr)")
        let id = try #require(m.lines.first)
        let show = try await fp.run(["show", String(id.prefix(6))])
        #expect(show.status == 0, "\(show.stderr)")
        let sections = show.lines.filter { $0.hasPrefix("== ") }.map { $0.split(separator: " ")[1] }
        #expect(sections == ["Measurement", "Cellular", "Wi-Fi", "BLE", "Geolocation"])
        #expect(show.stdout.contains("mode            static"))
        // By default BLE is a row per transmitter, the most heard first.
        let doc = try fp.json(try await fp.run(["show", id, "--json"]).stdout)
        let addresses = try #require(doc["bleScans"] as? [[String: Any]]).compactMap { $0["address"] as? String }
        let heard = Dictionary(addresses.map { ($0, 1) }, uniquingKeysWith: +)
        let mostHeard = try #require(heard.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.first)
        let bleStart = try #require(show.allLines.firstIndex { $0.hasPrefix("== BLE") })
        #expect(show.allLines[bleStart + 2].hasPrefix("  ADDRESS"))
        let rows = show.allLines[(bleStart + 3)...].prefix { !$0.isEmpty }
        #expect(rows.count == heard.count)
        #expect(rows.first?.hasPrefix("  \(mostHeard.key)") == true, "\(rows.first ?? "")")
        #expect(rows.first?.contains(" \(mostHeard.value) ") == true)
        // The registry beacon at (1441, 303) is heard.
        #expect(show.stdout.contains("C5:D5:21:51:D7:90"))

        // --samples prints every report, sorted by time.
        let samples = try await fp.run(["show", String(id.prefix(6)), "--samples"])
        let start = try #require(samples.allLines.firstIndex { $0.hasPrefix("== BLE") })
        let times = samples.allLines[(start + 3)...].prefix { !$0.isEmpty }.compactMap {
            Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        #expect(times.count == addresses.count && times == times.sorted())
    }

    @Test func radiosSettingAndFlagsDecideWhatIsCollected() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["config", "set", "radios", "ble,wifi"]).status == 0)
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                            "--duration", "5", "--no-wifi", "--json"])
        #expect(m.status == 0, "\(m.stderr)")
        let doc = try fp.json(m.stdout)
        #expect(doc["collectBluetoothData"] as? Bool == true && doc["collectWifiData"] as? Bool == false)
        let providers = try #require(doc["providers"] as? [String: [String: Any]])
        #expect(providers["wifi"]?["status"] as? String == "disabled")
        #expect(providers["cell"]?["status"] as? String == "disabled")
        #expect((doc["wifiScans"] as? [Any])?.isEmpty == true)
        #expect((doc["bleScans"] as? [Any])?.isEmpty == false)
    }

    @Test func withoutRadioHardwareMeasureRefusesWithAReason() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--duration", "5"])
        #expect(m.status == 69)
        #expect(m.stderr.hasPrefix("error: no radio can be recorded here"))
        #expect(m.stderr.contains("--simulate"))
        #expect(m.stderr.split(separator: "\n").count == 1)
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)
    }

    @Test func ctrlCStoresNothingAndExits130() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--duration", "20"],
                           interruptAfter: 1.5)
        #expect(m.status == 130)
        #expect(m.stderr.contains("interrupted: nothing stored"))
        #expect(m.stdout.isEmpty)
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)
    }
}

@Suite struct ArgumentAndConfigErrorTests {
    @Test(arguments: [
        (["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--duration", "200"], Int32(64), "--duration must be 5–120 seconds (or all, with --ble-source btsnoop:FILE), got 200"),
        (["measure", "--map", "J9NP", "--x", "1", "--y", "1", "--simulate"], Int32(66), "error: unknown map 'J9NP' (the config offers: J1NP, J2NP, J3NP)"),
        (["walk", "--scenario", "nope", "--simulate"], Int32(66), "error: unknown scenario 'nope'"),
        (["walk", "--scenario", "scenarioJ1NP1", "--speed-correction", "11"], Int32(64), "--speed-correction must be −10…+10, got 11"),
        (["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--fast"], Int32(64), "--fast needs --simulate"),
        (["show", "doesnotexist"], Int32(66), "error: no document with id doesnotexist"),
        (["config", "set", "measurement-seconds", "200"], Int32(64), "measurement-seconds"),
        (["list", "--since", "last tuesday"], Int32(64), "--since: cannot read 'last tuesday'"),
    ])
    func badArgumentsGiveOneLineAndAnExitCode(args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let r = try await fp.run(args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!r.stderr.contains("Fatal error"))
    }

    @Test func badConfigFileNamesTheFileAndPath() async throws {
        var fp = try FprintRunner()
        let bad = fp.home.appendingPathComponent("bad-config.json")
        try #"{"gatewayURL": "http://127.0.0.1:5984/fprint", "authURL": "http://127.0.0.1:5984/_session", "scenariosURL": "s.json", "maps": [{"id": 5}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        fp.environment["FPRINT_CONFIG"] = bad.path
        let r = try await fp.run(["maps"])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("error: \(bad.path): $.maps[0]"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func everyCommandHasHelpWithExamples() async throws {
        let fp = try FprintRunner()
        for command in ["measure", "walk", "list", "show", "delete", "import", "maps", "scenarios", "config", "eval", "locate", "export", "plot", "coverage"] {
            let r = try await fp.run([command, "--help"])
            #expect(r.status == 0, "\(command)")
            #expect(r.stdout.contains("Example"), "\(command) --help shows no examples")
        }
    }
}

@Suite struct BrowseDeleteImportTests {
    @Test func deleteOnlyUnsyncedDocuments() async throws {
        let fp = try FprintRunner()
        let a = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        let b = try await fp.run(["measure", "--map", "J1NP", "--x", "400", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        let idA = try #require(a.lines.first), idB = try #require(b.lines.first)
        try SQLiteDocumentStore(path: fp.db).markSynced(ids: [idB])

        let delA = try await fp.run(["delete", idA])
        #expect(delA.status == 0 && delA.lines == [idA] && delA.stderr.contains("deleted 1 document"))
        #expect(try await fp.run(["show", idA]).status == 66)

        let delB = try await fp.run(["delete", idB])
        #expect(delB.status == 1)
        #expect(delB.stderr.contains("already synced"))
        #expect(try await fp.run(["show", idB]).status == 0)
        // What is pending: A's deletion (its tombstone goes at the next sync), not B.
        let unsynced = try await fp.run(["list", "--unsynced", "--json"])
        #expect(unsynced.lines.count == 1 && unsynced.stdout.contains(idA) && unsynced.stdout.contains(#""deleted":true"#),
                "\(unsynced.stdout)")
        #expect(try await fp.run(["list", "--json"]).stdout.contains(idA) == false)
    }

    /// Several documents at once: one transaction, a confirmation (or --yes),
    /// synced ones only with --synced-too.
    @Test func deleteSeveralBySessionIdsOrFilters() async throws {
        let fp = try FprintRunner()
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1"])
        #expect(walk.status == 0, "\(walk.stderr)")
        let store = try SQLiteDocumentStore(path: fp.db)
        let walked = try store.list(ListQuery())
        let session = try #require(try store.document(id: walked[0].id, includeDeleted: false)?.body["sessionId"]?.stringValue)
        let m = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"])
        let single = try #require(m.lines.first)
        try store.markSynced(ids: [single])

        // Piped, more than one needs --yes; nothing is deleted without it.
        let asked = try await fp.run(["delete", "--session", session])
        #expect(asked.status == 64 && asked.stderr.contains("add --yes"), "\(asked.stderr)")
        #expect(try store.count() == walked.count + 1)
        // One synced document among the ids refuses them all.
        let mixed = try await fp.run(["delete", walked[0].id, single, "--yes"])
        #expect(mixed.status == 1 && mixed.stderr.contains("already synced"), "\(mixed.stderr)")
        #expect(try store.count() == walked.count + 1)
        // The unsynced J1NP filter leaves the synced document.
        let filtered = try await fp.run(["delete", "--unsynced", "--map", "J1NP", "--before", "2099-01-01", "--yes"])
        #expect(filtered.status == 0, "\(filtered.stderr)")
        #expect(Set(filtered.lines) == Set(walked.map(\.id)))
        #expect(try store.list(ListQuery()).map(\.id) == [single])
        // --synced-too deletes it; its tombstone waits for the next sync.
        let synced = try await fp.run(["delete", single, "--synced-too"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try store.count() == 0)
        #expect(try store.changeFeed(since: 0, limit: 1000).contains { $0.id == single && $0.deleted })
    }

    @Test func importsOldAppDocumentsOnceAndShowsThem() async throws {
        let fp = try FprintRunner()
        let fixtures = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCoreTests/Fixtures")
        let ios = fixtures.appendingPathComponent("legacy-ios-all-docs.json").path
        let android = fixtures.appendingPathComponent("legacy-android.jsonl").path
        let first = try await fp.run(["import", "--timezone", "Europe/Prague", ios, android, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains(#""imported":2"#))
        let again = try await fp.run(["import", ios])
        #expect(again.stderr.contains("imported 0, already present 2"))
        let list = try await fp.run(["list", "--json"])
        #expect(list.lines.count == 4)
        let show = try await fp.run(["show", "0B6F1D2E"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("x 363, y 701"))
        #expect(show.stdout.contains("4B1C9F5E-2D7A-4E61-8F3B-0C5D6E7F8A9B"))
        #expect(show.stdout.contains("2017-05-12T12:33:21.000Z"))
    }

    @Test func importRefusesWhatEvalCannotUseAndNamesDirectories() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("rssi.json")
        try #"[{"_id":"a","x":1,"y":2},{"_id":"b","x":1,"y":2,"wifiScans":[{"mac":"m","rssi":"abc","time":1}]}]"#
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try await fp.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(file.path): $[1].wifiScans[0].rssi: expected a number, found \"abc\"\n")
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)  // not even document a
        let folder = try await fp.run(["import", fp.home.path])
        #expect(folder.status == 65)
        #expect(folder.stderr.hasPrefix("error: \(fp.home.path): is a directory"))
    }

    @Test func badImportFileStoresNothing() async throws {
        let fp = try FprintRunner()
        let file = fp.home.appendingPathComponent("broken.jsonl")
        // Line 1 is usable: converted and written into the import's transaction
        // before line 2 is read (the file is streamed), and still not stored.
        try "{\"_id\":\"ok-1\",\"x\":1,\"y\":2}\n{broken\n".write(to: file, atomically: true, encoding: .utf8)
        let r = try await fp.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "error: \(file.path): line 2, column 2: not valid JSON (unexpected \"b\" where a key in double quotes should be)\n")
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 0)
    }

    @Test func settingsPersistAndReset() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["config", "get", "measurement-seconds"]).stdout == "20\n")
        #expect(try await fp.run(["config", "set", "measurement-seconds", "30"]).status == 0)
        #expect(try await fp.run(["config", "get", "measurement-seconds"]).stdout == "30\n")
        let all = try fp.json(try await fp.run(["config", "get", "--json"]).stdout)
        #expect(all["measurement-seconds"] as? String == "30" && all["speed-correction"] as? String == "0")
        #expect(try await fp.run(["config", "reset"]).status == 0)
        #expect(try await fp.run(["config", "get", "measurement-seconds"]).stdout == "20\n")
    }

    @Test func mapsAndScenariosFromTheShippedConfig() async throws {
        let fp = try FprintRunner()
        let maps = try await fp.run(["maps", "--json"])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(maps.stdout.utf8)) as? [[String: Any]])
        #expect(list.compactMap { $0["id"] as? String } == ["J1NP", "J2NP", "J3NP"])
        let scenarios = try await fp.run(["scenarios", "--map", "J1NP"])
        #expect(scenarios.status == 0)
        #expect(scenarios.stdout.contains("scenarioJ1NP1") && scenarios.stdout.contains("93.1"))
        // A route on two floors: both maps, the whole length, and its legs in JSON.
        let all = try await fp.run(["scenarios"])
        let row = try #require(all.lines.first { $0.hasPrefix("scenarioJ2J3 ") })
        #expect(row.contains("J2NP→J3NP"), "\(row)")
        let json = try await fp.run(["scenarios", "--json"])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let twoFloors = try #require(entries.first { $0["scenarioID"] as? String == "scenarioJ2J3" })
        let legs = try #require(twoFloors["then"] as? [[String: Any]])
        #expect(legs.map { $0["mapID"] as? String } == ["J3NP"] && legs.map { $0["via"] as? String } == ["stairs"])
        let legMeters = try #require(legs.first?["lengthMeters"] as? Double)
        let total = try #require(twoFloors["lengthMeters"] as? Double)
        #expect(legMeters > 0 && total > legMeters + 1)
        #expect(entries.first { $0["scenarioID"] as? String == "scenarioJ1NP1" }?["then"] == nil)
    }
}

@Suite struct DoctorCLITests {
    /// This host has no radio hardware, gpsd or ModemManager: doctor says why for each and exits 69.
    @Test func doctorExplainsEverySourceAsJSON() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["doctor", "--json", "--gpsd", "127.0.0.1:1"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: String]])
        let bySource = Dictionary(rows.map { ($0["source"] ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        for source in ["ble", "wifi", "cell", "location", "sensors", "gateway"] {
            #expect(bySource[source] != nil, "doctor has a \(source) row")
        }
        #expect(bySource["location"]?["detail"] == "gpsd is not reachable at 127.0.0.1:1: Connection refused")
        #expect(rows.allSatisfy { !($0["detail"] ?? "").isEmpty })
        let anyRadio = ["ble", "wifi", "cell", "location"].contains { bySource[$0]?["status"] == "ok" }
        #expect(r.status == (anyRadio ? 0 : 69))
    }

    @Test func doctorRejectsABadGpsdAddress() async throws {
        let r = try await FprintRunner().run(["doctor", "--gpsd", "host:99999"])
        #expect(r.status == 64 && r.stderr.contains("--gpsd"))
    }
}

extension ISO8601DateFormatter {
    static var withMillis: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
