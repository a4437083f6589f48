import FPCore
import FPStore
import Foundation
import Testing

@Suite struct ExportCLITests {
    /// Every live document body by id, straight from a database file.
    func bodies(_ db: String) throws -> [String: String] {
        let store = try SQLiteDocumentStore(path: db)
        return Dictionary(uniqueKeysWithValues: try store.documentTexts(ListQuery()).map { ($0.id, $0.body) })
    }

    @Test(arguments: ["couch-view", "jsonl"])
    func exportThenImportGivesIdenticalBodies(format: String) async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "2"]).status == 0)
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                            "--duration", "5"]).status == 0)
        // An old-app document imported earlier round-trips too (its import stamp is kept).
        let ios = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPCoreTests/Fixtures/legacy-ios-all-docs.json")
        #expect(try await fp.run(["import", "--timezone", "Europe/Prague", ios.path]).status == 0)
        let file = fp.home.appendingPathComponent("export.\(format)")
        let e = try await fp.run(["export", format, "--output", file.path])
        #expect(e.status == 0, "\(e.stderr)")

        var other = fp
        let otherDB = fp.home.appendingPathComponent("other.sqlite").path
        other.environment["FPRINT_DB"] = otherDB
        let i = try await other.run(["import", file.path])
        #expect(i.status == 0, "\(i.stderr)")
        let before = try bodies(fp.db), after = try bodies(otherDB)
        #expect(before.count == 50 && after.count == before.count)  // 47 walk + 1 static + 2 iOS
        for (id, body) in before { #expect(after[id] == body, "document \(id) changed in the round trip") }
    }

    @Test func couchViewIsWhatTheEvaluatorReads() async throws {
        let fp = try FprintRunner()
        #expect(try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                            "--duration", "5"]).status == 0)
        let r = try await fp.run(["export", "couch-view"])
        let view = try fp.json(r.stdout)
        let rows = try #require(view["rows"] as? [[String: Any]])
        #expect(rows.count == 1)
        let value = try #require(rows[0]["value"] as? [String: Any])
        #expect(rows[0]["id"] is String)
        // The evaluator's keys: whole x/y, level, bleScans {address, rssi, time}, wifiScans {mac, rssi, time}.
        #expect(value["x"] as? Int == 363 && value["y"] as? Int == 701 && value["level"] as? String == "J1NP")
        let ble = try #require((value["bleScans"] as? [[String: Any]])?.first)
        #expect(ble["address"] is String && ble["time"] is Int)
        #expect(value["_rev"] == nil)
    }

    @Test func csvWigleGeoJSONAndComfordShapes() async throws {
        let fp = try FprintRunner()
        let m = try await fp.run(["measure", "--map", "J3NP", "--x", "1441", "--y", "303", "--simulate", "--fast", "--duration", "5"])
        let id = try #require(m.lines.first)
        let csv = try await fp.run(["export", "csv"])
        #expect(csv.lines.first == "doc_id,created_at,map,x,y,mode,session_id,seq,radio,transmitter,name,rssi,time_ms,frequency,channel")
        #expect(csv.lines.dropFirst().allSatisfy { $0.hasPrefix(id + ",") })
        #expect(csv.lines.contains { $0.contains(",ble,BLE:c5:d5:21:51:d7:90,") })
        #expect(csv.lines.contains { $0.contains(",wifi,WIFI:") } && csv.lines.contains { $0.contains(",cell,CELL:lte:230-01:") })

        let wigle = try await fp.run(["export", "wigle"])
        #expect(wigle.lines[0].hasPrefix("WigleWifi-1.6,appRelease=fprint "))
        #expect(wigle.lines[0].hasSuffix(",star=Sol,body=3,subBody=0"))
        #expect(wigle.lines[1] == "MAC,SSID,AuthMode,FirstSeen,Channel,Frequency,RSSI,CurrentLatitude,CurrentLongitude,AltitudeMeters,AccuracyMeters,RCOIs,MfgrId,Type")
        let rows = wigle.lines.dropFirst(2).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.count == 14 && ($0[13] == "WIFI" || $0[13] == "BLE") })
        #expect(rows.contains { $0[0] == "c5:d5:21:51:d7:90" && $0[2] == "Misc [LE]" })

        let geo = try fp.json(try await fp.run(["export", "geojson"]).stdout)
        #expect(geo["type"] as? String == "FeatureCollection")
        let feature = try #require((geo["features"] as? [[String: Any]])?.first)
        let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
        #expect(coordinates.count == 3 && (15...16).contains(coordinates[0]) && (50...51).contains(coordinates[1]))  // [long, lat, alt]

        let dir = fp.home.appendingPathComponent("comford").path
        #expect(try await fp.run(["export", "comford", "--output", dir]).status == 0)
        let samples = try String(contentsOfFile: dir + "/Samples.csv", encoding: .utf8).split(separator: "\n")
        #expect(samples == ["sample_id,doc_id,x,y,floor,map,timestamp,mode", "1,\(id),28.82,6.06,3,J3NP,\(samples[1].split(separator: ",")[6]),static"])
        let aps = try String(contentsOfFile: dir + "/APs.csv", encoding: .utf8).split(separator: "\n")
        let rssi = try String(contentsOfFile: dir + "/RSSI.csv", encoding: .utf8).split(separator: "\n")
        #expect(aps.first == "ap_id,transmitter,radio,address,name" && rssi.first == "sample_id,ap_id,rssi")
        #expect(rssi.count == aps.count)  // one sample: one RSSI row per AP
    }

    @Test func badArguments() async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let r = try await fp.run(["export", "comford"])
        #expect(r.status == 64 && r.stderr.contains("comford writes three files: give --output DIR"))
        let bad = try await fp.run(["export", "kml"])
        #expect(bad.status == 64)
        let unwritable = try await fp.run(["export", "jsonl", "--output", "/proc/fprint-no/x.jsonl"])
        #expect(unwritable.status == 74 && unwritable.stderr.hasPrefix("error: /proc/fprint-no/x.jsonl: cannot write the file"))
    }
}
