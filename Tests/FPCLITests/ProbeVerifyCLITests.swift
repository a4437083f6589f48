import FPTestSupport
import Foundation
import Testing

/// `fprint probe --verify` checks signatures offline against the server keys
/// the user trusted (`--trust-server`): it never contacts a server a file names.
extension ProbeCLITests {
    /// Changes the last digit of a phase's signed figure and of the copy beside it
    /// (so only the signature can tell).
    static func alteringSigned(_ probe: [String: Any], phase name: String, figure: String) -> [String: Any] {
        editing(probe, phase: name) { phase in
            var signed = phase["signed"] as? [String: Any] ?? [:]
            var result = signed["result"] as? [String: Any] ?? [:]
            let value = (result[figure] as? Int) ?? 0
            let altered = value % 10 == 9 ? value - 1 : value + 1
            result[figure] = altered
            signed["result"] = result
            phase["signed"] = signed
            phase[figure] = altered
        }
    }

    /// Issue 53 item 10: a result file whose `server` names an impostor that
    /// answers "valid" to anything. Before: `--verify` sent the user's token to
    /// it with every signed result (three connections) and believed it, exit 0.
    @Test func aFileNamingAnImpostorIsInvalidAndTheImpostorHearsNothing() async throws {
        let g = try await ProbeGateway()
        let probe = try await g.probe()
        try await g.trust()
        let impostor = try FakeProbeServer()
        defer { impostor.stop() }
        var forged = Self.alteringSigned(probe, phase: "down", figure: "bitsPerSecond")
        forged["server"] = "127.0.0.1:\(impostor.port)"
        var victim = g.runner
        victim.environment["FPRINT_TOKEN"] = g.token
        let r = try await victim.run(["probe", "--verify", try g.write(forged, "forged.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        let down = try #require(r.lines.first { $0.hasPrefix("down:") })
        #expect(down.hasPrefix("down: INVALID"), "\(down)")
        #expect(r.lines.contains { $0.hasPrefix("up: valid") }, "\(r.stdout)")
        #expect(impostor.accepted == 0, "the impostor was called \(impostor.accepted) times")
        let leaked = impostor.received.contains(g.token)
        #expect(!leaked, "the impostor got the token")
    }

    /// A real probe, the gateway trusted, then the gateway gone: every signed
    /// phase verifies offline, and the fingerprint `--trust-server` showed is
    /// the one `fprint gateway probe-key` prints from the secret.
    @Test func aProbeVerifiesOfflineAfterTheGatewayIsTrusted() async throws {
        let g = try await ProbeGateway()
        let path = try g.write(try await g.probe(), "probe.json")
        let trusted = try await g.trust()
        let origin = g.gateway.url.replacingOccurrences(of: "/fprint", with: "")
        let shown = try #require(trusted.stdout.firstMatch(of: /^(http:[^ ]+): (SHA256:[A-Za-z0-9+\/]{43}) \(trusted now\)$/.anchorsMatchLineEndings()))
        #expect(String(shown.1) == origin)
        let printed = try await g.runner.run(["gateway", "probe-key", "--secret-file", g.runner.home.appendingPathComponent("secret").path])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.hasPrefix("\(shown.2) (ed25519 "), "\(printed.stdout)")
        // Not secret, but it decides what is believed: the owner's alone, like credentials.json.
        let keys = g.runner.home.appendingPathComponent("config/fprint/probe-keys.json").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: keys)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let before = try Data(contentsOf: URL(fileURLWithPath: keys))
        let again = try await g.runner.run(["probe", "--trust-server", g.gateway.url, "--token", g.token])
        #expect(again.status == 0 && again.stdout == "\(origin): \(shown.2) (already trusted)\n", "\(again.stdout)\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keys)) == before)

        await g.gateway.kill9AndWait()
        let r = try await g.runner.run(["probe", "--verify", path])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        for name in ["down", "up", "udp"] {
            #expect(r.lines.contains { $0.hasPrefix("\(name): valid (measured for alice from 127.0.0.1 at ") && $0.hasSuffix("; signed by the key of \(origin))") },
                    "\(r.stdout)")
        }
        #expect(r.lines.contains("ping: skipped, no figures to verify"), "\(r.stdout)")
    }

    /// One digit of a signed figure changed (and the copy beside it, so they agree): INVALID.
    @Test func oneChangedDigitOfASignedFigureIsInvalid() async throws {
        let g = try await ProbeGateway()
        let forged = Self.alteringSigned(try await g.probe(), phase: "udp", figure: "receivedByServer")
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", try g.write(forged, "forged.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        #expect(r.lines.contains("udp: INVALID (altered after the server signed it)"), "\(r.stdout)")
        #expect(r.lines.contains { $0.hasPrefix("down: valid") }, "\(r.stdout)")
        #expect(r.stderr == "error: \(g.runner.home.appendingPathComponent("forged.json").path): 1 phase of 4 does not verify\n", "\(r.stderr)")
    }

    /// Nothing trusted yet: one line that says what to do, exit 64, before the file is read.
    @Test func verifyWithoutATrustedServerSaysHowToTrustOne() async throws {
        let fp = try FprintRunner()
        let r = try await fp.run(["probe", "--verify", "probe.json"])
        #expect(r.status == 64)
        let keys = fp.home.appendingPathComponent("config/fprint/probe-keys.json").path
        #expect(r.stderr == "error: no probe server is trusted yet (\(keys)): run `fprint probe --trust-server URL` with your gateway's URL first\n",
                "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    /// A genuine result of another gateway (another secret, so another key) spliced in: not trusted.
    @Test func aResultSignedByAnUntrustedGatewayIsInvalid() async throws {
        let g = try await ProbeGateway()
        let other = try await ProbeGateway()
        let theirs = try #require((try await other.probe()["phases"] as? [[String: Any]])?.first { $0["phase"] as? String == "up" })
        let forged = Self.editing(try await g.probe(), phase: "up") { $0 = theirs }
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", try g.write(forged, "forged.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        #expect(r.lines.contains("up: INVALID (signed by a server you have not trusted)"), "\(r.stdout)")
        #expect(r.lines.contains { $0.hasPrefix("udp: valid") }, "\(r.stdout)")
    }

    /// A result as an older gateway signed it (an HMAC: `{result, signature}` alone)
    /// is named as such, and no server, not even the one the file names, is asked.
    @Test func anOlderGatewaysSharedSecretResultIsUnverifiedAndNobodyIsAsked() async throws {
        let g = try await ProbeGateway()
        let impostor = try FakeProbeServer()
        defer { impostor.stop() }
        var old = Self.editing(try await g.probe(), phase: "down") { phase in
            var signed = phase["signed"] as? [String: Any] ?? [:]
            signed["alg"] = nil
            signed["key"] = nil
            phase["signed"] = signed
        }
        old["server"] = "127.0.0.1:\(impostor.port)"
        try await g.trust()
        let r = try await g.runner.run(["probe", "--verify", try g.write(old, "old.json")])
        #expect(r.status == 65, "\(r.stdout)\(r.stderr)")
        #expect(r.lines.contains("down: UNVERIFIED (signed by an older gateway with a shared secret; cannot be checked offline)"), "\(r.stdout)")
        #expect(impostor.accepted == 0)
    }

    /// --verify needs neither a server nor a token: giving one says so instead of ignoring it.
    @Test func verifyRefusesAServerOrATokenToSendTo() async throws {
        let fp = try FprintRunner()
        for extra in [["--server", "127.0.0.1:5985"], ["--token", "t.t.t"]] {
            let r = try await fp.run(["probe", "--verify", "probe.json"] + extra)
            #expect(r.status == 64, "\(extra): \(r.stderr)")
            #expect(r.stderr.contains("--verify checks offline against the keys you trusted: --server and --token do not apply"), "\(r.stderr)")
        }
    }

    /// Bad input to --trust-server: one line naming what and where, nothing written.
    @Test func trustServerRefusesAMalformedURLAndAnAnswerThatIsNoKey() async throws {
        let fp = try FprintRunner()
        let keys = fp.home.appendingPathComponent("config/fprint/probe-keys.json").path
        let malformed = try await fp.run(["probe", "--trust-server", "gw.example.org:5985", "--token", "t.t.t"])
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("--trust-server: use the gateway's http(s) URL"), "\(malformed.stderr)")

        let garbage = try RecordedPeer { _ in RecordedPeer.Answer(status: 200, body: "<html>hello</html>") }
        defer { garbage.stop() }
        let url = "http://127.0.0.1:\(garbage.port)"
        let r = try await fp.run(["probe", "--trust-server", url, "--token", "t.t.t"])
        #expect(r.status == 76, "\(r.stderr)")
        #expect(r.stderr == "error: \(url)/config/probe-key.json: the answer is not a probe key (not JSON)\n", "\(r.stderr)")
        #expect(garbage.requests.map(\.path) == ["/config/probe-key.json"])

        let wrongKey = try RecordedPeer { _ in RecordedPeer.Answer(status: 200, body: #"{"alg":"ed25519","key":"c2hvcnQ"}"#) }
        defer { wrongKey.stop() }
        let short = try await fp.run(["probe", "--trust-server", "http://127.0.0.1:\(wrongKey.port)", "--token", "t.t.t"])
        #expect(short.status == 76, "\(short.stderr)")
        #expect(short.stderr.contains("the answer is not a probe key (\"key\" is not an Ed25519 public key in base64url)"), "\(short.stderr)")

        let missing = try RecordedPeer { _ in RecordedPeer.Answer(status: 404, body: #"{"error":"not_found"}"#) }
        defer { missing.stop() }
        let old = try await fp.run(["probe", "--trust-server", "http://127.0.0.1:\(missing.port)/fprint", "--token", "t.t.t"])
        #expect(old.status == 76, "\(old.stderr)")
        #expect(old.stderr.contains("answered HTTP 404: this server serves no probe key"), "\(old.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keys))
    }

    /// A trusted keys file that is not one: one line naming it, exit 65, never "nothing trusted";
    /// one that others may write: refused, 64.
    @Test func aDamagedTrustedKeysFileIsNamed() async throws {
        let fp = try FprintRunner()
        let folder = fp.home.appendingPathComponent("config/fprint")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keys = folder.appendingPathComponent("probe-keys.json").path
        for (text, message) in [("not json", "not a trusted probe keys file of fprint"),
                                (#"{"version":1,"keys":[{"alg":"ed25519","key":"AAAA"}]}"#, "keys[0]: \"key\" is not an Ed25519 public key")] {
            #expect(FileManager.default.createFile(atPath: keys, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
            let r = try await fp.run(["probe", "--verify", "probe.json"])
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr.hasPrefix("error: \(keys): \(message)") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
        // Whoever may write the file decides what is believed: one others may write is refused.
        try Data(#"{"version":1,"keys":[]}"#.utf8).write(to: URL(fileURLWithPath: keys))
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: keys)
        let open = try await fp.run(["probe", "--verify", "probe.json"])
        #expect(open.status == 64, "\(open.stderr)")
        #expect(open.stderr == "error: \(keys): the trusted probe keys must be writable by their owner only (chmod 600)\n", "\(open.stderr)")
    }

    /// On the gateway's host: no secret yet is an error, and none is made.
    @Test func probeKeyWithoutASecretMakesNone() async throws {
        let fp = try FprintRunner()
        let secret = fp.home.appendingPathComponent("no-secret").path
        let r = try await fp.run(["gateway", "probe-key", "--secret-file", secret])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr == "error: \(secret): no gateway secret (the gateway makes one when it first starts)\n", "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: secret))
    }
}
