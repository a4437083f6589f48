import Foundation
import Testing

/// The webhook against a receiver on a loopback port (real sockets, `RecordedPeer`).
@Suite struct AlertWebhookCLITests {
    /// The events the receiver got, in order: (event, rule, id).
    func events(_ peer: RecordedPeer, _ fp: FprintRunner) throws -> [(event: String, id: String, until: Any?)] {
        try peer.requests.map { request in
            let body = try fp.json(String(decoding: request.body, as: UTF8.self))
            #expect(request.method == "POST")
            #expect(request.path == "/hook")
            #expect(request.header("Content-Type") == "application/json")
            return (body["event"] as? String ?? "?", body["id"] as? String ?? "?", (body["alert"] as? [String: Any])?["until"])
        }
    }

    @Test func eventsAreRetriedWithBackoffAndPostedOnce() async throws {
        let answered = AnswerCounter()
        let peer = try RecordedPeer { _ in
            // The receiver is down for its first request.
            answered.next() == 0 ? .init(status: 503, body: "{}") : .init(status: 200, body: "{}")
        }
        defer { peer.stop() }
        var fp = try FprintRunner()
        #expect(try await fp.run(["alerts", "add", "slow", "download < 5 Mbit/s"]).status == 0)
        #expect(try await fp.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        try await importDocuments(fp, [("p0", probedDoc(minute: 0, mbit: 20)), ("p1", probedDoc(minute: 5, mbit: 3))])

        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T10:06:00.000Z"
        var r = try await fp.run(["alerts"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("warning: alert webhook http://127.0.0.1:\(peer.port)/hook: answered 503; 1 event kept to send later"), "\(r.stderr)")
        #expect(peer.requests.count == 1)

        // Within the backoff (30 s after the failure) nothing is posted.
        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T10:06:20.000Z"
        r = try await fp.run(["alerts"])
        #expect(peer.requests.count == 1)

        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T10:06:40.000Z"
        r = try await fp.run(["alerts"])
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        #expect(peer.requests.count == 2)
        r = try await fp.run(["alerts"])
        #expect(peer.requests.count == 2)  // delivered once

        try await importDocuments(fp, [("p2", probedDoc(minute: 10, mbit: 30))])
        fp.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T10:11:00.000Z"
        r = try await fp.run(["alerts"])
        #expect(r.status == 0)
        let got = try events(peer, fp)
        let raisedID = "slow|every map|\(Self.ms("2026-11-01T10:05:00.000Z"))|raised"
        #expect(got.map(\.event) == ["raised", "raised", "cleared"])
        #expect(got.map(\.id) == [raisedID, raisedID, raisedID.replacingOccurrences(of: "|raised", with: "|cleared")])
        #expect(got.last?.until as? String == "2026-11-01T10:10:00.000Z")
    }

    @Test func measureEvaluatesAfterStoringAndPosts() async throws {
        let peer = try RecordedPeer { _ in .init(status: 204, body: "") }
        defer { peer.stop() }
        let fp = try FprintRunner()
        #expect(try await fp.run(["alerts", "add", "thin", "coverage < 1000 beacons", "--map", "J1NP"]).status == 0)
        #expect(try await fp.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        let r = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 alert active (fprint alerts)"), "\(r.stderr)")
        let got = try events(peer, fp)
        #expect(got.map(\.event) == ["raised"])
        #expect(got.first?.id.hasPrefix("thin|J1NP cell (363, 701)|") == true)
    }

    @Test func walkEvaluatesAfterStoring() async throws {
        let peer = try RecordedPeer { _ in .init(status: 200, body: "{}") }
        defer { peer.stop() }
        let fp = try FprintRunner()
        #expect(try await fp.run(["alerts", "add", "thin", "coverage < 1000 beacons", "--map", "J1NP"]).status == 0)
        #expect(try await fp.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        let r = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
        #expect(r.status == 0, "\(r.stderr)")
        let stored = r.lines.count  // one id per document (stdout is a pipe)
        #expect(stored > 1)
        let got = try events(peer, fp)
        // One raised alert per cell walked (points can share a cell).
        #expect(!got.isEmpty && got.count <= stored)
        #expect(got.allSatisfy { $0.event == "raised" && $0.id.hasPrefix("thin|J1NP cell (") })
        #expect(r.stderr.contains("\(got.count) alerts active (fprint alerts)") || got.count == 1, "\(r.stderr)")
    }

    /// Documents another replica measured arrive by `sync` and are evaluated there (an import is not).
    @Test func syncEvaluatesWhatItReceived() async throws {
        let peer = try RecordedPeer { _ in .init(status: 200, body: "{}") }
        defer { peer.stop() }
        var runner = try FprintRunner()
        let secret = runner.home.appendingPathComponent("gw-secret").path
        let issued = try await runner.run(["gateway", "token", "--user", "alice", "--secret-file", secret])
        runner.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        runner.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T11:00:00.000Z"
        let gateway = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("g.sqlite").path, secret: secret)
        defer { gateway.kill9() }
        #expect(try await runner.run(["alerts", "add", "slow", "download < 5 Mbit/s", "--link", "wlan0"]).status == 0)
        #expect(try await runner.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        try await importDocuments(runner, [("p0", probedDoc(minute: 0, mbit: 20)), ("p1", probedDoc(minute: 5, mbit: 3))])
        #expect(try await runner.run(["sync", "--gateway", gateway.url, "--push-only"]).status == 0)
        #expect(peer.requests.isEmpty)

        var other = runner
        other.environment["FPRINT_DB"] = runner.home.appendingPathComponent("other.sqlite").path
        let pulled = try await other.run(["sync", "--gateway", gateway.url, "--pull-only"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(pulled.stderr.contains("1 alert active (fprint alerts)"), "\(pulled.stderr)")
        let got = try events(peer, other)
        #expect(got.map(\.event) == ["raised"])
        #expect(got.first?.id == "slow|link wlan0|\(Self.ms("2026-11-01T10:05:00.000Z"))|raised")
        #expect(FileManager.default.fileExists(atPath: other.environment["FPRINT_DB"]! + "-alerts.json"))
    }

    /// The gateway evaluates as documents arrive: a push is enough, no command runs on the gateway's side.
    @Test func theGatewayEvaluatesAsDocumentsArrive() async throws {
        let peer = try RecordedPeer { _ in .init(status: 200, body: "{}") }
        defer { peer.stop() }
        var runner = try FprintRunner()
        let secret = runner.home.appendingPathComponent("gw-secret").path
        let issued = try await runner.run(["gateway", "token", "--user", "alice", "--secret-file", secret])
        runner.environment["FPRINT_TOKEN"] = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        runner.environment["FPRINT_ALERTS_NOW"] = "2026-11-01T11:00:00.000Z"
        #expect(try await runner.run(["alerts", "add", "slow", "download < 5 Mbit/s"]).status == 0)
        #expect(try await runner.run(["alerts", "webhook", "http://127.0.0.1:\(peer.port)/hook"]).status == 0)
        let gatewayDB = runner.home.appendingPathComponent("g.sqlite").path
        let gateway = try await GatewayProcess(runner: runner, db: gatewayDB, secret: secret)
        defer { gateway.kill9() }
        // The client has no rules: its own config says nothing of alerts.
        var client = runner
        client.environment["XDG_CONFIG_HOME"] = runner.home.appendingPathComponent("client-config").path
        try await importDocuments(client, [("p0", probedDoc(minute: 0, mbit: 20)), ("p1", probedDoc(minute: 5, mbit: 3))])
        #expect(try await client.run(["sync", "--gateway", gateway.url, "--push-only"]).status == 0)
        let deadline = ContinuousClock.now + .seconds(15)
        while peer.requests.isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let got = try events(peer, runner)
        #expect(got.map(\.event) == ["raised"])
        #expect(got.first?.id == "slow|every map|\(Self.ms("2026-11-01T10:05:00.000Z"))|raised")
        #expect(FileManager.default.fileExists(atPath: gatewayDB + "-alerts.json"))
    }

    static func ms(_ iso: String) -> Int64 {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Int64(f.date(from: iso)!.timeIntervalSince1970 * 1000)
    }
}

/// Counts the receiver's answers across its thread.
final class AnswerCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count - 1
    }
}
