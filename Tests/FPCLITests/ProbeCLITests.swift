import FPTestSupport
import Foundation
import Testing

/// `fprint probe`, `--trust-server` and `--verify`, and how `show` and `export
/// probes-csv` present a stored probe, against a real gateway's probe port on loopback.
@Suite struct ProbeCLITests {
    /// A gateway with `--probe-port 0`, a token for alice and a probe's JSON measured against it.
    final class ProbeGateway: @unchecked Sendable {
        let runner: FprintRunner
        let gateway: GatewayProcess
        let token: String
        let probePort: Int

        init() async throws {
            var runner = try FprintRunner()
            runner.environment["FPRINT_GATEWAY"] = nil
            self.runner = runner
            let secret = runner.home.appendingPathComponent("secret").path
            token = try await runner.run(["gateway", "token", "--user", "alice", "--secret-file", secret]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            gateway = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("gw.sqlite").path,
                                               secret: secret, extra: ["--probe-port", "0"])
            // The probe port's line comes before the HTTP one's.
            guard let match = gateway.stderrLog.text.firstMatch(of: /probes on tcp\+udp 127\.0\.0\.1:([0-9]+)/), let port = Int(match.1) else {
                Issue.record("no probe port: \(gateway.stderrLog.text)")
                throw CancellationError()
            }
            probePort = port
        }

        var server: String { "127.0.0.1:\(probePort)" }

        /// A short probe's JSON (`fprint probe --json`), parsed.
        func probe() async throws -> [String: Any] {
            let r = try await runner.run(["probe", "--server", server, "--token", token, "--json", "--seconds", "0.3",
                                          "--datagrams", "20", "--spacing-ms", "5", "--pings", "0"])
            #expect(r.status == 0, "\(r.stderr)")
            return try runner.json(r.stdout)
        }

        /// `fprint probe --trust-server` of this gateway, with alice's token: what a user does once.
        @discardableResult
        func trust() async throws -> FprintRunner.Result {
            let r = try await runner.run(["probe", "--trust-server", gateway.url, "--token", token])
            #expect(r.status == 0, "\(r.stderr)")
            return r
        }

        func write(_ object: Any, _ name: String) throws -> String {
            let path = runner.home.appendingPathComponent(name).path
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// Edits one phase (by name) of a probe object.
    static func editing(_ probe: [String: Any], phase name: String, _ edit: (inout [String: Any]) -> Void) -> [String: Any] {
        var probe = probe
        var phases = probe["phases"] as? [[String: Any]] ?? []
        if let i = phases.firstIndex(where: { $0["phase"] as? String == name }) { edit(&phases[i]) }
        probe["phases"] = phases
        return probe
    }

    /// The defect: a figure edited beside the signed result (what `show`
    /// printed) still verified, exit 0.
    @Test func aFigureEditedBesideTheSignedResultDoesNotVerify() async throws {
        let g = try await ProbeGateway()
        let forged = Self.editing(try await g.probe(), phase: "udp") { $0["lossDownPercent"] = 42.5 }
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", try g.write(forged, "forged.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        let udp = try #require(r.lines.first { $0.hasPrefix("udp:") })
        #expect(udp.contains("UNVERIFIED") && udp.contains("lossDownPercent"), "\(udp)")
        #expect(r.lines.contains { $0.hasPrefix("down: valid") }, "\(r.stdout)")
        #expect(r.stderr.contains("1 phase of 4 does not verify"), "\(r.stderr)")
    }

    /// The defect: a phase whose signed block was deleted (and figures made up) was not even looked at.
    @Test func aPhaseWithoutItsSignatureDoesNotVerify() async throws {
        let g = try await ProbeGateway()
        let forged = Self.editing(try await g.probe(), phase: "up") {
            $0["signed"] = nil
            $0["bitsPerSecond"] = 987_654_321
        }
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", try g.write(forged, "forged.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        let up = try #require(r.lines.first { $0.hasPrefix("up:") })
        #expect(up.contains("UNVERIFIED") && up.contains("no signature"), "\(up)")
    }

    /// A genuine signed result copied into a second probe of the same file is not taken twice.
    @Test func aSignedResultUsedTwiceDoesNotVerify() async throws {
        let g = try await ProbeGateway()
        let probe = try await g.probe()
        let path = try g.write(["networkProbes": [probe, probe]], "twice.json")
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", path])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        #expect(r.lines.contains("probe 2 udp: UNVERIFIED (the same signed result as probe 1 udp)"), "\(r.stdout)")
        #expect(r.lines.contains { $0.hasPrefix("probe 1 udp: valid") }, "\(r.stdout)")
    }

    /// The defect: a forged document imported and displayed its fake figures.
    /// `show` and `export probes-csv` give the signed ones and mark what is not signed.
    @Test func showAndExportGiveTheSignedFiguresAndMarkTheUnverified() async throws {
        let g = try await ProbeGateway()
        var measuring = g.runner
        measuring.environment["FPRINT_TOKEN"] = g.token
        let measured = try await measuring.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast",
                                                "--duration", "5", "--probe", "--probe-server", g.server, "--probe-seconds", "0.3",
                                                "--probe-datagrams", "20"])
        #expect(measured.status == 0, "\(measured.stderr)")
        let id = try #require(measured.lines.first)
        var doc = try g.runner.json(try await g.runner.run(["show", id, "--json"]).stdout)
        var probe = try #require((doc["networkProbes"] as? [[String: Any]])?.first)
        let udp = try #require((probe["phases"] as? [[String: Any]])?.first { $0["phase"] as? String == "udp" })
        let signedLoss = try #require(((udp["signed"] as? [String: Any])?["result"] as? [String: Any])?["lossDownPercent"] as? Double)
        probe = Self.editing(probe, phase: "udp") { $0["lossDownPercent"] = 42.5 }
        probe = Self.editing(probe, phase: "down") {
            $0["signed"] = nil
            $0["bitsPerSecond"] = 987_654_321
        }
        doc["networkProbes"] = [probe]
        var other = try FprintRunner()
        other.environment["FPRINT_GATEWAY"] = nil
        let imported = try await other.run(["import", try g.write(doc, "forged-doc.json")])
        #expect(imported.status == 0, "\(imported.stderr)")

        let shown = try await other.run(["show", id])
        #expect(shown.status == 0, "\(shown.stderr)")
        let udpLine = try #require(shown.lines.first { $0.contains("udp ") && $0.contains("loss") })
        #expect(udpLine.contains(String(format: "↓ %.1f %%", signedLoss)) && !udpLine.contains("42.5"), "\(udpLine)")
        #expect(udpLine.contains("UNVERIFIED"), "\(udpLine)")
        let downLine = try #require(shown.lines.first { $0.contains("down ") && $0.contains("Mbit/s") })
        #expect(downLine.contains("UNVERIFIED: no signature"), "\(downLine)")
        let upLine = try #require(shown.lines.first { $0.contains("up ") && $0.contains("Mbit/s") })
        #expect(!upLine.contains("UNVERIFIED"), "\(upLine)")

        let csv = try await other.run(["export", "probes-csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let header = try #require(csv.lines.first).split(separator: ",").map(String.init)
        let rows = csv.lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        func cell(_ phase: String, _ column: String) -> String? {
            guard let c = header.firstIndex(of: column), let p = header.firstIndex(of: "phase") else { return nil }
            return rows.first { $0.count == header.count && $0[p] == phase }?[c]
        }
        #expect(cell("udp", "loss_down_percent").flatMap(Double.init) == signedLoss)
        #expect(cell("udp", "signed") == "altered")
        #expect(cell("down", "signed") == "no")
        #expect(cell("up", "signed") == "yes")
    }

    /// A host that cannot be connected to: the first phase says why, the
    /// others are not run (before: each waited for its own connect), exit 75.
    @Test func aServerThatCannotBeConnectedToStopsTheProbeAfterTheFirstPhase() async throws {
        let g = try await ProbeGateway()
        await g.gateway.kill9AndWait()
        let r = try await g.runner.run(["probe", "--server", g.server, "--token", g.token, "--json", "--pings", "3"])
        #expect(r.status == 75, "\(r.stderr)")
        let phases = try #require(try g.runner.json(r.stdout)["phases"] as? [[String: Any]])
        #expect(phases.map { $0["phase"] as? String } == ["down", "up", "udp", "ping"])
        #expect(phases[0]["status"] as? String == "unreachable")
        for phase in phases.dropFirst() {
            #expect(phase["status"] as? String == "skipped", "\(phase)")
            #expect((phase["reason"] as? String)?.hasPrefix("not run: down could not connect") == true, "\(phase)")
        }
    }
}
