import FPTestSupport
import Foundation
import Testing

/// `fprint eval --train … --test …` on the hand-made UJI layout (`Fixtures/uji-mini`):
/// month 02 is month 01 two dB weaker, so both months give the same figures.
///   training (x, y, floor): 1 (1,1,3)  2 (1,1,3, same readings as 1)  3 (5,1,3)  4 (9,1,3)  5 (9,5,5)  6 (5,5,5)
///   test: t1 = row 1's readings at (1,1,3); t2 2 dB off row 3 on three APs at (5,1,3);
///         t3 2 dB off row 5 at (9,5,5); t4 1 dB off row 6 on two APs at (5,5,5).
/// knn1: every test's nearest is its own point: errors 0, floors all right.
/// knn9 (k = 6, all of them): t1 is at distance 0 from row 1, so row 1: error 0; the others get
/// the mean (5, 14/6) and the floor most of the six have, 3: errors 4/3, √(16 + (16/6)²), 16/6; floors 2 of 4.
@Suite struct EvalHoldoutCLITests {
    static func imported() async throws -> FprintRunner {
        let fp = try FprintRunner()
        let r = try await fp.run(["import", DatasetFixtures.path("uji-mini")])
        #expect(r.status == 0, "\(r.stderr)")
        return fp
    }

    static let protocolArgs = ["eval", "--train", "campaign=trn01", "--test", "set=test", "--group-by", "month"]

    @Test func perMonthFiguresAsCSV() async throws {
        let fp = try await Self.imported()
        let r = try await fp.run(Self.protocolArgs + ["--method", "knn1,knn9", "--csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let p75 = 0.5 * (16.0 / 6) + 0.5 * (16 + (16.0 / 6) * (16.0 / 6)).squareRoot()  // position 3.5 of 4: halfway
        let rows = r.lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(r.lines.first == "group,method,train,test,mean_m,median_m,p75_prctile_m,p75_nearest_rank_m,p95_nearest_rank_m,max_m,floor_hits,floor_success_rate")
        #expect(rows.map { Array($0.prefix(4)) } == [["01", "knn1", "6", "4"], ["01", "knn9", "6", "4"], ["02", "knn1", "6", "4"], ["02", "knn9", "6", "4"]])
        for row in rows where row[1] == "knn1" { #expect(row[4...] == ["0.0", "0.0", "0.0", "0.0", "0.0", "0.0", "4", "1.0"]) }
        for row in rows where row[1] == "knn9" {
            #expect(abs(Double(row[6])! - p75) < 1e-12)
            #expect(abs(Double(row[7])! - 16.0 / 6) < 1e-12)  // rank 3 of 4
            #expect(row[10] == "2" && row[11] == "0.5")
        }
    }

    @Test func predictionsJSONAndThePlotAcrossMonths() async throws {
        let fp = try await Self.imported()
        let csv = fp.home.appendingPathComponent("p.csv").path
        let r = try await fp.run(Self.protocolArgs + ["--method", "knn9,gk4k12,wknn2", "--predictions", csv, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + 2 * 3 * 4)
        #expect(lines[0] == "group,method,test_id,predicted_x_m,predicted_y_m,predicted_floor,actual_x_m,actual_y_m,actual_floor,error_m,floor_hit")
        let t2 = try #require(lines.first { $0.hasPrefix("01,knn9,") && $0.contains(":uji-mini:01:tst01:2,") })
        #expect(t2.hasSuffix(",5.0,2.3333333333333335,3,5.0,1.0,3,1.3333333333333335,1"), "\(t2)")
        let out = try fp.json(r.stdout)
        #expect(out["mode"] as? String == "train-test" && out["groupBy"] as? String == "month" && out["set"] as? String == "combined")
        let groups = try #require(out["groups"] as? [[String: Any]])
        #expect(groups.compactMap { $0["group"] as? String } == ["01", "02"])
        #expect(groups[0]["columns"] as? Int == 5)  // every column of the table
        let results = try #require(groups[0]["results"] as? [[String: Any]])
        #expect(results.compactMap { $0["method"] as? String } == ["knn9", "gk4k12", "wknn2"])
        #expect(results[0]["floorHits"] as? Int == 2 && results[0]["p75NearestRank"] != nil && results[0]["p75Prctile"] != nil)

        let json = fp.home.appendingPathComponent("months.json")
        try r.stdout.write(to: json, atomically: true, encoding: .utf8)
        let svg = fp.home.appendingPathComponent("months.svg").path
        let plot = try await fp.run(["plot", "groups", json.path, "-o", svg])
        #expect(plot.status == 0, "\(plot.stderr)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        for needle in ["75th percentile error (m)", "floor success (%)", ">knn9<", ">gk4k12<", ">wknn2<", ">01<", ">02<", "month"] {
            #expect(text.contains(needle), "\(needle)")
        }
        #expect(text.components(separatedBy: "<polyline").count - 1 == 6)  // 3 methods × 2 panels
        let spark = try await fp.run(["plot", "months", json.path, "--sparkline"])
        #expect(spark.status == 0 && spark.lines.count == 3, "\(spark.stderr)")
    }

    @Test func aTableWithoutGroups() async throws {
        let fp = try await Self.imported()
        let r = try await fp.run(["eval", "--train", "month=1,campaign=trn01", "--test", "month=01,set=test", "--method", "knn1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.first == "METHOD  TRAIN  TEST  MEAN m  MEDIAN m  P75 m (prctile)  P75 m (rank)  P95 m (rank)  MAX m  FLOOR OK")
        #expect(r.lines.dropFirst().first == "knn1        6     4    0.00      0.00             0.00          0.00          0.00   0.00   100.00%")
        #expect(r.stderr.contains("4 test fingerprints, evaluated in"))
    }

    /// Leave-one-out reads the whole metres of `x`/`y`: an imported dataset's maps need no app config.
    @Test func leaveOneOutOfADatasetIsInMetres() async throws {
        let fp = try await Self.imported()
        let r = try await fp.run(["eval", "--map", "UJI-LIB-5", "--set", "wifi", "--estimator", "nn", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("2250 units"), "\(r.stderr)")
        let result = try #require((try fp.json(r.stdout)["results"] as? [[String: Any]])?.first)
        // Row 5 (9,5) and 6 (5,5) of each month and the tests t3 (9,5), t4 (5,5): every nearest is 0 or 4 m away.
        #expect(result["count"] as? Int == 8 && Set([0.0, 4.0]).isSuperset(of: [result["median"] as? Double ?? -1, result["max"] as? Double ?? -1]))
    }

    @Test(arguments: [
        (["--train", "set=train"], "--train and --test go together"),
        (["--method", "knn9"], "--method needs --train and --test"),
        (["--train", "a=1", "--test", "b=2", "--method", "knn0"], "--method: 'knn0' is none of knnK, wknnK, gkSkK"),
        (["--train", "a=1", "--test", "b=2", "--method", "knn9,knn15..1"], "--method: 'knn15..1' is an empty range (15 > 1)"),
        (["--train", "a=1", "--test", "b=2", "--method", "knm1..3"], "--method: 'knm1..3' is none of knnK, wknnK, gkSkK"),
        (["--train", "a=1", "--test", "b=2", "--estimator", "knn"], "--estimator and --k are leave-one-out's"),
        (["--train", "a", "--test", "b=2"], "--train: 'a' is not key=value"),
        (["--train", "since=soon", "--test", "b=2"], "--train: since 'soon': use 2016-06-01"),
        (["--train", "a=1", "--test", "b=2", "--set", "wifi,ble"], "--set: with --train/--test one of wifi, ble, combined"),
    ])
    func optionsAreChecked(args: [String], message: String) async throws {
        try await FprintRunner.expectRefusal(["eval"] + args, status: 64, message: message)
    }

    /// A sweep in one pass: the ranges expand in order, `--json` lists every method, and each
    /// method's figures and predictions are exactly those of a run of that method alone.
    @Test func aSweepInOnePassEqualsSeparateRuns() async throws {
        let fp = try await Self.imported()
        let sweepCSV = fp.home.appendingPathComponent("sweep.csv").path
        let sweep = try await fp.run(Self.protocolArgs + ["--method", "knn1..3,wknn1..2,gk2..4k2", "--json", "--predictions", sweepCSV])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let names = ["knn1", "knn2", "knn3", "wknn1", "wknn2", "gk2k2", "gk3k2", "gk4k2"]
        let groups = try #require(try fp.json(sweep.stdout)["groups"] as? [[String: Any]])
        #expect(groups.count == 2)
        for g in groups { #expect((g["results"] as? [[String: Any]])?.compactMap { $0["method"] as? String } == names) }
        let sweepLines = try String(contentsOfFile: sweepCSV, encoding: .utf8).split(separator: "\n").dropFirst()
        for name in ["knn3", "wknn2", "gk3k2"] {
            let aloneCSV = fp.home.appendingPathComponent("\(name).csv").path
            let alone = try await fp.run(Self.protocolArgs + ["--method", name, "--json", "--predictions", aloneCSV])
            #expect(alone.status == 0, "\(alone.stderr)")
            let aloneGroups = try #require(try fp.json(alone.stdout)["groups"] as? [[String: Any]])
            for (g, a) in zip(groups, aloneGroups) {
                let swept = try #require((g["results"] as? [[String: Any]])?.first { $0["method"] as? String == name })
                let single = try #require((a["results"] as? [[String: Any]])?.first)
                #expect(NSDictionary(dictionary: swept).isEqual(to: single), "\(name): \(swept) vs \(single)")
            }
            let aloneLines = try String(contentsOfFile: aloneCSV, encoding: .utf8).split(separator: "\n").dropFirst()
            #expect(Array(sweepLines.filter { $0.split(separator: ",")[1] == name }) == Array(aloneLines), "\(name)")
            #expect(aloneLines.count == 8)
        }
    }

    @Test func selectionsThatMatchNothing() async throws {
        let fp = try await Self.imported()
        let r = try await fp.run(["eval", "--train", "campaign=trn02", "--test", "set=test"])
        #expect(r.status == 66 && r.stderr == "error: no stored fingerprint matches --train campaign=trn02\n", "\(r.stderr)")
        let plot = try await fp.run(["plot", "groups", DatasetFixtures.path("ble-flat-mini.csv")])
        #expect(plot.status == 65 && plot.stderr.contains("not JSON of `fprint eval --json`"), "\(plot.stderr)")
    }
}

/// The exactness of `fprint import` and `fprint eval` as a user runs them,
/// on two months of the real dataset (the whole 15 run in-process in
/// FPDatasetsTests, where a debug build takes a minute less).
@Suite struct UJIExactnessCLITests {
    @Test func monthsTwoAndThreeThroughTheStore() async throws {
        let extracted = try await PublicDatasets.extracted("uji-lib-longterm-m01-15.tar.xz", folder: "uji-lib-longterm")
        let fp = try FprintRunner()
        let root = fp.home.appendingPathComponent("uji-lib-longterm")
        for month in ["02", "03"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent("db"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: extracted.appendingPathComponent("db/\(month)"),
                                             to: root.appendingPathComponent("db/\(month)"))
        }
        // At nice 10, as the in-process months: tens of seconds of a debug build's work yield to timed tests.
        func nicely(_ args: [String]) async throws -> FprintRunner.Result {
            try await FprintRunner.runProcess(URL(fileURLWithPath: "/usr/bin/nice"), ["-n", "10", try FprintRunner.executable().path] + args,
                                              environment: fp.environment, directory: fp.home)
        }
        let imported = try await nicely(["import", root.path])
        #expect(imported.status == 0 && imported.stderr.contains("imported 7392"), "\(imported.stderr)")
        let csv = fp.home.appendingPathComponent("p.csv").path
        let r = try await nicely(["eval", "--train", "campaign=trn01", "--test", "set=test", "--group-by", "month",
                                  "--method", "knn9,knn1,gk4k12", "--predictions", csv, "--csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let reference = try ReferenceSummary.read()
        var rows = 0
        for line in r.lines.dropFirst() {
            let f = line.split(separator: ",").map(String.init)
            let want = try #require(reference[ReferenceSummary.key(Int(f[0])!, f[1])])
            #expect(abs(Double(f[6])! - want.p75) <= 1e-6, "\(line)")
            #expect(String(format: "%.6f", Double(f[11])!) == want.floorRate, "\(line)")
            #expect(f[3] == "3120")
            rows += 1
        }
        #expect(rows == 6)
        // Every knn9 and knn1 prediction, in file order.
        let predicted = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").map(String.init) }
        var compared = 0
        for month in [2, 3] {
            for method in ["knn9", "knn1"] {
                let mine = predicted.filter { Int($0[0]) == month && $0[1] == method }
                let name = String(format: "m%02d-%@.csv", month, method)
                let theirs = try String(contentsOf: PublicDatasets.ujiReference.appendingPathComponent(name), encoding: .utf8)
                    .split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
                #expect(mine.count == theirs.count)
                for (m, t) in zip(mine, theirs) {
                    let same = abs(Double(m[3])! - t[0]) <= 1e-9 && abs(Double(m[4])! - t[1]) <= 1e-9 && Double(m[5]) == t[2]
                        && abs(Double(m[6])! - t[3]) <= 1e-9 && abs(Double(m[7])! - t[4]) <= 1e-9 && Double(m[8]) == t[5]
                    if same { compared += 1 }
                }
            }
        }
        #expect(compared == 4 * 3120)
    }
}

/// `summary-m01-15.tsv` by month and method.
enum ReferenceSummary {
    static func key(_ month: Int, _ method: String) -> String { "\(month) \(method)" }

    static func read() throws -> [String: (p75: Double, floorRate: String)] {
        let text = try String(contentsOf: PublicDatasets.ujiReference.appendingPathComponent("summary-m01-15.tsv"), encoding: .utf8)
        var out: [String: (Double, String)] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t").map(String.init)
            out[key(Int(f[0])!, f[1])] = (Double(f[2])!, f[3])
        }
        return out
    }
}
