import FPCore
import FPStore
import Foundation
import Testing

@Suite struct PeriodicMeasureTests {
    @Test func everyRunIsItsOwnDocumentOnAFixedSchedule() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                            "--duration", "5", "--every", "5s", "--count", "2", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let docs = try r.lines.map { try fp.json($0) }
        #expect(docs.count == 2)
        #expect(Set(docs.compactMap { $0["_id"] as? String }).count == 2)
        let starts = docs.compactMap { ($0["startTime"] as? String).flatMap(ISO8601DateFormatter.withMillis.date(from:)) }
        #expect(starts.count == 2)
        if starts.count == 2 {
            let gap = starts[1].timeIntervalSince(starts[0])
            // On the schedule, not after it: a run whose slot has passed is
            // skipped, so two runs here mean the second kept its slot.
            #expect(gap > 4.8 && gap < 10, "runs start 5 s apart, got \(gap)")
        }
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 2)
    }

    @Test func interruptionKeepsFinishedRunsAndDiscardsTheCurrentOne() async throws {
        let fp = try FprintRunner()
        // Runs at 0 s and 5 s, 5 s each (real time). SIGINT goes once the first
        // run's id is printed (it is stored by then), so it lands in the
        // second run however busy the machine.
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate",
                                  "--duration", "5", "--every", "5s", "--count", "3"],
                                 interruptWhen: { $0.contains("\n") })
        #expect(r.status == 130)
        #expect(r.stderr.contains("stopped: 1 document stored; the measurement in progress was discarded"), "\(r.stderr)")
        #expect(r.lines.count == 1)  // the one stored id
        #expect(try SQLiteDocumentStore(path: fp.db).count() == 1)
    }

    @Test(arguments: [
        (["--every", "15x"], "--every must be"), (["--count", "2"], "--count and --for need --every"),
        (["--every", "5s", "--count", "0"], "--count must be at least 1"),
        (["--every", "5s", "--duration", "10"], "must be at least --duration"),
        (["--every", "1m", "--for", "soon"], "--for must be"),
    ])
    func badScheduleArguments(extra: [String], message: String) async throws {
        let r = try await FprintRunner().run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate"] + extra)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    /// Virtual time ends at the real now, and the seed is printed and stored.
    @Test func fastDocumentsEndNowAndKeepTheirSeed() async throws {
        let fp = try FprintRunner()
        let before = Date()
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                                  "--duration", "60", "--json"])
        let after = Date()
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try fp.json(r.stdout)
        let end = try #require((doc["endTime"] as? String).flatMap(ISO8601DateFormatter.withMillis.date(from:)))
        let start = try #require((doc["startTime"] as? String).flatMap(ISO8601DateFormatter.withMillis.date(from:)))
        #expect(end <= after.addingTimeInterval(0.01) && start >= before.addingTimeInterval(-61), "\(start) – \(end)")
        let providers = try #require(doc["providers"] as? [String: Any])
        let seed = try #require((providers["ble"] as? [String: Any])?["seed"] as? Int)
        #expect((providers["wifi"] as? [String: Any])?["seed"] as? Int == seed)
        #expect(r.stderr.contains("simulated radios: seed \(seed) (--seed \(seed) repeats this run)"), "\(r.stderr)")
        // measure's simulated building is the law alone, and the document says so.
        #expect((providers["ble"] as? [String: Any])?["model"] as? String == "ideal")

        let again = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                                      "--duration", "60", "--json", "--seed", String(seed)])
        let repeated = try fp.json(again.stdout)
        #expect(!again.stderr.contains("simulated radios: seed"))
        #expect((repeated["bleScans"] as? [[String: Any]])?.count == (doc["bleScans"] as? [[String: Any]])?.count)
    }

    /// A walk's simulated building is realistic unless --ideal, and each document says which it was.
    @Test func simulatedDocumentsSayWhichBuildingTheyCameFrom() async throws {
        let fp = try FprintRunner()
        for extra in [[], ["--ideal"]] {
            #expect(try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1"] + extra).status == 0)
        }
        let docs = try await fp.run(["export", "jsonl"]).lines.map(fp.json)
        let models = docs.map { doc in
            ["ble", "wifi"].map { ((doc["providers"] as? [String: Any])?[$0] as? [String: Any])?["model"] as? String ?? "none" }
        }
        #expect(!docs.isEmpty && docs.count % 2 == 0)
        #expect(models.filter { $0 == ["realistic", "realistic"] }.count == docs.count / 2, "\(Set(models))")
        #expect(models.filter { $0 == ["ideal", "ideal"] }.count == docs.count / 2)
    }

    /// Only walk and scenarios need the scenarios file: broken, it fails them alone.
    @Test func aBrokenScenariosFileFailsOnlyWhatNeedsIt() async throws {
        let fp = try FprintRunner()
        let using = try fp.configWithScenarios(#"{"scenarios": [oops]}"#)
        let maps = try await fp.run(["maps"] + using)
        #expect(maps.status == 0, "\(maps.stderr)")
        #expect(maps.stdout.contains("J1NP"))
        #expect(maps.stderr.hasPrefix("warning: scenarios not shown: "), "\(maps.stderr)")
        let measure = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast",
                                        "--duration", "5"] + using)
        #expect(measure.status == 0, "\(measure.stderr)")
        let walk = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"] + using)
        #expect(walk.status == 65)
        #expect(walk.stderr.contains("scenarios.json"), "\(walk.stderr)")
    }

    /// A negative coordinate is read as a value and refused as one, not as a missing value.
    @Test func negativeCoordinatesAreNamed() async throws {
        let r = try await FprintRunner().run(["measure", "--map", "J1NP", "--x", "-5", "--y", "1", "--simulate"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--x and --y must be non-negative map units"), "\(r.stderr)")
    }
}
