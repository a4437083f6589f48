import FPTestSupport
import Foundation
import Testing

/// `fprint probe`, `--verify`, and how `show` and `export probes-csv` present
/// a stored probe, against a real gateway's probe port on loopback.
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

        func write(_ object: Any, _ name: String) throws -> String {
            let path = runner.home.appendingPathComponent(name).path
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
            return path
        }
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
