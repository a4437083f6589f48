import FPStore
import FPCore
import Foundation
import Testing

/// Writes documents as a couch-view file and imports them, so a test controls
/// every key eval reads (the rows' order is file order).
func importDocuments(_ fp: FprintRunner, _ docs: [(id: String, body: [String: Any])]) async throws {
    let rows = docs.map { ["id": $0.id, "value": $0.body] as [String: Any] }
    let data = try JSONSerialization.data(withJSONObject: ["rows": rows], options: [.sortedKeys])
    let file = fp.home.appendingPathComponent("import-\(UUID().uuidString).json")
    try data.write(to: file)
    let r = try await fp.run(["import", file.path])
    #expect(r.status == 0, "\(r.stderr)")
}

/// A static J1NP document with one Wi-Fi transmitter A heard at `rssi`.
func doc(_ x: Int, _ y: Int, rssi: Int, minute: Int, level: String = "J1NP") -> [String: Any] {
    ["x": x, "y": y, "level": level, "mode": "static", "type": "scan",
     "createdAt": String(format: "2026-11-01T10:%02d:00.000Z", minute),
     "wifiScans": [["mac": "02:00:00:00:00:0A", "ssid": "t", "rssi": rssi, "time": 100]], "bleScans": []]
}

@Suite struct EvalCLITests {
    // Case B of FPAnalysisTests, stored with ids in the reverse of their
    // row order, so ties can only come out right in the file's row order:
    //   z0 (0,0) −50  y1 (10,0) −60  x2 (20,0) −40  w3 (30,0) −60   (createdAt 10:00 … 10:03)
    // NN: z0 → y1 (tie with x2, w3 at d 10): 10 units; y1 → w3 (d 0): 20; x2 → z0: 20; w3 → y1 (d 0): 20.
    // WKNN k=2, worked out with IEEE doubles: 0.3, 0.3999940000599994, 0.33333333333333337, 0.4000019999800002.
    static var caseB: [(id: String, body: [String: Any])] { [
        ("z0", doc(0, 0, rssi: -50, minute: 0)), ("y1", doc(10, 0, rssi: -60, minute: 1)),
        ("x2", doc(20, 0, rssi: -40, minute: 2)), ("w3", doc(30, 0, rssi: -60, minute: 3)),
    ] }

    @Test func reproducesTheHandCheckedCaseExactly() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, Self.caseB)
        let r = try await fp.run(["eval", "--set", "wifi", "--estimator", "nn,wknn", "--k", "2", "--json", "--worst", "4"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        #expect(out["measurements"] as? Int == 4 && out["order"] as? String == "import")
        let results = try #require(out["results"] as? [[String: Any]])
        #expect(results.count == 2)
        let nn = results[0], wknn = results[1]
        #expect(nn["estimator"] as? String == "nn" && nn["k"] as? Int == 1)
        #expect(nn["median"] as? Double == 0.4 && nn["max"] as? Double == 0.4 && nn["mean"] as? Double == 0.35)
        // Worst first; equal errors the later in file order first (w3, x2, y1: the
        // evaluator's max is the last of its ascending list), then the best, z0.
        let nnWorst = try #require(nn["worst"] as? [[String: Any]])
        #expect(nnWorst.compactMap { $0["id"] as? String } == ["w3", "x2", "y1", "z0"])
        #expect(wknn["estimator"] as? String == "wknn" && wknn["k"] as? Int == 2)
        // Exact doubles are checked in the JSON text (shortest round-trip form):
        // Foundation's JSONSerialization on Linux may misread the last bit.
        let text = r.stdout
        #expect(text.contains(#""median":0.3666636666966664,"#))  // (0.3333… + 0.39999…) / 2
        #expect(text.contains(#""max":0.4000019999800002,"#))
        #expect(text.contains(#""mean":0.35833233334333325,"#))
        #expect(text.contains(#""error":0.33333333333333337,"#))
        #expect(wknn["floorHitRate"] as? Double == 1 && wknn["unlocalised"] as? Int == 0)
    }

    @Test func csvAndTableCarryTheSameFigures() async throws {
        let fp = try FprintRunner()
        try await importDocuments(fp, Self.caseB)
        let csv = try await fp.run(["eval", "--set", "wifi", "--estimator", "nn", "--csv"])
        #expect(csv.lines == ["set,estimator,k,count,unlocalised,mean_m,median_m,p75_m,p95_m,max_m,wrong_floor,floor_hit_rate",
                              "wifi,nn,1,4,0,0.35,0.4,0.4,0.4,0.4,0,1.0"])
        let table = try await fp.run(["eval", "--set", "wifi", "--estimator", "nn"])
        #expect(table.lines.first?.hasPrefix("SET") == true)
        #expect(table.lines[1].split(separator: " ") == ["wifi", "NN", "1", "4", "0", "0.35", "0.40", "0.40", "0.40", "0.40", "100.0%"])
        #expect(table.stdout.contains("wifi NN k=1: w3 0.40 m, x2 0.40 m, y1 0.40 m"))
    }

    @Test func filtersUnlocalisedAndWrongFloor() async throws {
        let fp = try FprintRunner()
        var docs = Self.caseB
        // On J2NP, heard like z0: z0's nearest is now this one (a floor miss) and vice versa.
        docs.append(("v4", doc(0, 0, rssi: -50, minute: 4, level: "J2NP")))
        // Hears nothing anyone else hears: no estimate.
        var lonely = doc(5, 5, rssi: -70, minute: 5)
        lonely["wifiScans"] = [["mac": "02:00:00:00:00:0F", "ssid": "t", "rssi": -70, "time": 100]]
        docs.append(("u5", lonely))
        try await importDocuments(fp, docs)
        let all = try fp.json(try await fp.run(["eval", "--set", "wifi", "--estimator", "nn", "--json"]).stdout)
        let r = try #require((all["results"] as? [[String: Any]])?.first)
        #expect(r["count"] as? Int == 5 && r["unlocalised"] as? Int == 1)
        #expect(r["wrongFloor"] as? Int == 2)
        let j1 = try fp.json(try await fp.run(["eval", "--map", "J1NP", "--set", "wifi", "--estimator", "nn", "--json"]).stdout)
        #expect(j1["measurements"] as? Int == 5)
        let since = try fp.json(try await fp.run(["eval", "--since", "2026-11-01T10:02:00Z", "--set", "wifi",
                                            "--estimator", "nn", "--json"]).stdout)
        #expect(since["measurements"] as? Int == 4)
    }

    @Test func simulatedWalksEvaluateEverySetAndK() async throws {
        let fp = try FprintRunner()
        for seed in ["3", "4"] {
            let w = try await fp.run(["walk", "--scenario", "scenarioJ3NP1", "--simulate", "--fast", "--seed", seed])
            #expect(w.status == 0, "\(w.stderr)")
        }
        let r = try await fp.run(["eval", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let out = try fp.json(r.stdout)
        let n = try #require(out["measurements"] as? Int)
        let results = try #require(out["results"] as? [[String: Any]])
        #expect(results.count == 21)  // 3 sets × (NN + KNN k 1..3 + WKNN k 1..3)
        for row in results {
            #expect((row["count"] as? Int ?? 0) + (row["unlocalised"] as? Int ?? 0) == n)
        }
        // NN and KNN k=1 take the same neighbour's exact position.
        func row(_ set: String, _ est: String, _ k: Int) -> [String: Any]? {
            results.first { $0["set"] as? String == set && $0["estimator"] as? String == est && $0["k"] as? Int == k }
        }
        #expect(row("combined", "nn", 1)?["mean"] as? Double == row("combined", "knn", 1)?["mean"] as? Double)
        let ble = try #require(row("ble", "wknn", 3))
        #expect((ble["count"] as? Int ?? 0) > 0 && (ble["median"] as? Double ?? 99) < 5)
    }

    @Test(arguments: [
        (["eval", "--k", "0"], Int32(64), "--k: cannot read '0'"),
        (["eval", "--set", "lte"], Int32(64), "--set: unknown value 'lte'"),
        (["eval", "--json", "--csv"], Int32(64), "--json and --csv exclude each other"),
        (["eval"], Int32(66), "error: eval needs at least 2 measurements, 0 match the filters"),
    ])
    func badInput(args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let r = try await fp.run(args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    /// A binary with no app config anywhere near it (copied elsewhere, run
    /// elsewhere): import, eval, locate and export still work, each map on
    /// the default scale with the same warning.
    @Test func analysisNeedsNoAppConfig() async throws {
        let fp = try FprintRunner()
        let lone = fp.home.appendingPathComponent("bin/fprint")
        try FileManager.default.createDirectory(at: lone.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try FprintRunner.executable(), to: lone)
        try await importDocuments(fp, Self.caseB)
        let warning = "warning: no app config was found: map J1NP uses 45 m = 2250 units"
        for args in [["eval"], ["locate", "z0"], ["export", "comford", "--output", fp.home.appendingPathComponent("cf").path]] {
            let r = try await FprintRunner.runProcess(lone, args, environment: fp.environment, directory: fp.home)
            #expect(r.status == 0, "\(args[0]): \(r.stderr)")
            #expect(r.stderr.contains(warning), "\(args[0]): \(r.stderr)")
        }
        // A config named but missing is still an error.
        let named = try await FprintRunner.runProcess(lone, ["eval", "--config", "/nowhere/app.json"],
                                                      environment: fp.environment, directory: fp.home)
        #expect(named.status == 65)
    }

    @Test func unreadableDocumentIsNamed() async throws {
        let fp = try FprintRunner()
        var bad = doc(1, 1, rssi: -50, minute: 9)
        bad["x"] = 1.5
        try await importDocuments(fp, Self.caseB)
        // import refuses such a document; one can still arrive by sync.
        let body = try CanonicalJSON.parse(JSONSerialization.data(withJSONObject: bad))
        try SQLiteDocumentStore(path: fp.db).insert([NewDocument(id: "bad1", body: body)])
        // Named and skipped: the other documents are still evaluated (issue 55).
        let r = try await fp.run(["eval"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: skipped document bad1: x is 1.5, not a whole number of map units\n"), "\(r.stderr)")
        #expect(r.stderr.contains("1 document on J1NP is not a measurement: skipped; `fprint list --foreign`"), "\(r.stderr)")
    }
}
