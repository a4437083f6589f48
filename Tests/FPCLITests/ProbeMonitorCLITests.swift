import FPCore
import FPTestSupport
import Foundation
import Testing

/// `fprint probe --every`: periodic probe runs against a real gateway's probe
/// port, each stored as a `mode: probe` document with its time, place and
/// link; Ctrl-C between runs ends at once, during one discards it; the
/// reading commands that localise pass the runs over without a word.
@Suite(.serialized) struct ProbeMonitorCLITests {
    static let quick = ["--seconds", "0.3", "--datagrams", "20", "--spacing-ms", "5", "--pings", "0", "--gpsd", "127.0.0.1:1"]

    @Test func everyRunIsStoredOnItsScheduleWithItsPlaceAndLink() async throws {
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let fp = g.runner
        let r = try await fp.run(["probe", "--server", g.server, "--token", g.token, "--every", "2s", "--count", "3",
                                  "--map", "J1NP", "--x", "363", "--y", "701", "--json"] + Self.quick)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("probe monitoring done: 3 runs stored"), "\(r.stderr)")
        let docs = try r.lines.map(fp.json)
        #expect(docs.count == 3)
        #expect(docs.allSatisfy { $0["mode"] as? String == "probe" && $0["level"] as? String == "J1NP" && $0["x"] as? Int == 363 })
        #expect(docs.map { $0["monitorRun"] as? Int ?? 0 } == [1, 2, 3])
        // Due every 2 s by the clock: starts 2 s apart, whatever each run took.
        let starts = docs.compactMap { ($0["startTime"] as? String).flatMap(ISOTime.milliseconds) }
        #expect(starts.count == 3)
        for (a, b) in zip(starts, starts.dropFirst()) {
            #expect(abs(Double(b - a) / 1000 - 2) < 0.5, "\(starts)")
        }
        let probe = try #require((docs[0]["networkProbes"] as? [[String: Any]])?.first)
        #expect((probe["link"] as? [String: Any])?["interface"] as? String == "lo", "\(probe["link"] ?? "none")")
        #expect((probe["phases"] as? [[String: Any]])?.first?["status"] as? String == "ok")
        let location = (docs[0]["providers"] as? [String: Any])?["location"] as? [String: Any]
        #expect(location?["status"] as? String == "unavailable" && (location?["reason"] as? String)?.contains("127.0.0.1:1") == true)

        // list shows them as probe runs; show reads them; eval and coverage pass them over silently
        let list = try await fp.run(["list"])
        #expect(list.lines.filter { $0.contains(" probe ") }.count == 3, "\(list.stdout)")
        let show = try await fp.run(["show", try #require(docs[0]["_id"] as? String)])
        #expect(show.status == 0 && show.stdout.contains("probe run") && show.stdout.contains("down   ok"), "\(show.stdout)")
        let csv = try await fp.run(["export", "probes-csv"])
        #expect(csv.status == 0 && csv.lines.filter { $0.contains(",down,") }.count == 3, "\(csv.stdout)")
        try await importDocuments(fp, EvalCLITests.caseB)
        let eval = try await fp.run(["eval", "--map", "J1NP", "--set", "wifi", "--estimator", "nn", "--json"])
        #expect(eval.status == 0, "\(eval.stderr)")
        #expect(!eval.stderr.contains("not measurement") && !eval.stderr.contains("skipped"), "\(eval.stderr)")
        #expect(eval.stdout.contains(#""count":4"#), "the four fingerprints only: \(eval.stdout.prefix(300))")
    }

    static let gpsfake = ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// gpsd through gpsfake from the committed NMEA log (Hradec Králové): each run keeps its first and last fix.
    @Test(.enabled(if: gpsfake != nil || ProcessInfo.processInfo.environment["FPRINT_REQUIRE_REAL"] == "1",
                   "gpsd and gpsfake are not installed (apt-get install gpsd gpsd-clients)"))
    func aRunKeepsGpsdsFixesAtItsStartAndEnd() async throws {
        let gpsfake = try #require(Self.gpsfake, "gpsfake is not installed but FPRINT_REQUIRE_REAL=1")
        let log = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPLinuxRadiosTests/Fixtures/gnss/hradec-walk.nmea").path
        let fake = try await Gpsfake(gpsfake: gpsfake, log: log)
        defer { fake.stop() }
        // gpsfake needs a moment to start its gpsd: wait until doctor finds a fix.
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        var ready = false
        for _ in 0..<50 where !ready {
            let doctor = try await g.runner.run(["doctor", "--json", "--gpsd", "127.0.0.1:\(fake.port)"])
            ready = doctor.stdout.contains("fix")
            if !ready { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        let r = try await g.runner.run(["probe", "--server", g.server, "--token", g.token, "--every", "5s", "--count", "1",
                                        "--seconds", "1", "--datagrams", "20", "--pings", "0",
                                        "--gpsd", "127.0.0.1:\(fake.port)", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try g.runner.json(try #require(r.lines.first))
        let probe = try #require((doc["networkProbes"] as? [[String: Any]])?.first)
        for key in ["gnssStart", "gnssEnd"] {
            let fix = probe[key] as? [String: Any]
            #expect(fix.map { abs(($0["lat"] as? Double ?? 0) - 50.204) < 0.001 && abs(($0["long"] as? Double ?? 0) - 15.8296) < 0.001 } == true,
                    "\(key): \(probe[key] ?? "none"); \(doc["providers"] ?? "")")
        }
        let location = (doc["providers"] as? [String: Any])?["location"] as? [String: Any]
        #expect(location?["status"] as? String == "ok", "\(location ?? [:])")
    }

    /// Limits are watched run by run: a rule crossed at the first run is posted to the webhook once.
    @Test func eachRunIsWatchedByTheAlertRules() async throws {
        let peer = try RecordedPeer { _ in .init(status: 204, body: "") }
        defer { peer.stop() }
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let fp = g.runner
        // Loopback carries far more than 1 Mbit/s: the rule holds from the first run on.
        #expect(try await fp.run(["alerts", "add", "fast", "download > 1 Mbit/s", "--link", "lo"]).status == 0)
        #expect(try await fp.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        let r = try await fp.run(["probe", "--server", g.server, "--token", g.token, "--every", "2s", "--count", "2"] + Self.quick)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 alert active (fprint alerts)"), "\(r.stderr)")
        let events = try peer.requests.map { try fp.json(String(decoding: $0.body, as: UTF8.self))["event"] as? String ?? "?" }
        #expect(events == ["raised"], "\(events)")
        let alerts = try await fp.run(["alerts"])
        #expect(alerts.status == 3, "\(alerts.stdout)")
    }

    @Test func ctrlCBetweenRunsEndsAtOnceAndKeepsWhatWasStored() async throws {
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let began = Date()
        let r = try await g.runner.run(["probe", "--server", g.server, "--token", g.token, "--every", "1h"] + Self.quick,
                                       interruptWhen: { !$0.isEmpty })
        #expect(r.status == 130, "\(r.stderr)")
        #expect(Date().timeIntervalSince(began) < 60, "an hour's wait is not waited out")
        #expect(r.stderr.contains("stopped: 1 probe run stored") && !r.stderr.contains("discarded"), "\(r.stderr)")
        #expect(try await g.runner.run(["list", "--json"]).lines.count == 1)
    }

    @Test func ctrlCDuringARunDiscardsItAndSaysSo() async throws {
        let g = try await ProbeCLITests.ProbeGateway()
        defer { g.gateway.kill9() }
        let r = try await g.runner.run(["probe", "--server", g.server, "--token", g.token, "--every", "1h", "--seconds", "8",
                                        "--pings", "0", "--gpsd", "127.0.0.1:1"], interruptAfter: 2)
        #expect(r.status == 130, "\(r.stderr)")
        #expect(r.stderr.contains("stopped: 0 probe runs stored; the run in progress was discarded"), "\(r.stderr)")
        let list = try await g.runner.run(["list", "--json"])
        #expect(list.stdout.isEmpty || list.status != 0)
    }

    @Test(arguments: [
        (["--every", "0"], "--every must be a whole number above 0"),
        (["--every", "10x"], "--every must be a whole number above 0"),
        (["--count", "3"], "--count needs --every"),
        (["--every", "1m", "--map", "J1NP"], "--map, --x and --y together"),
        (["--every", "1m", "--for", "soon"], "--for must be a whole number"),
        (["--every", "1m", "--verify", "x.json"], "do not apply"),
    ])
    func badMonitoringOptionsAreOneLine(args: [String], message: String) async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["probe", "--server", "127.0.0.1:1", "--token", "t"] + args)
        #expect(r.status == 64 && r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fp.db))
    }
}
