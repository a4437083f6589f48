import FPCore
import Foundation
import Testing

/// `fprint track --publish` against a real `fprint gateway`: the live view's
/// positions arrive, and a gateway that does not answer never stops the tracking.
@Suite struct TrackPublishCLITests {
    static let walk = ["track", "--simulate", "--scenario", "scenarioJ1NP1", "--seed", "7", "--fast", "--json",
                       "--method", "beacons", "--path-loss-exponent", "2.2"]

    @Test func everyPositionReachesTheGatewaysLiveView() async throws {
        var fp = try FprintRunner()
        let secret = fp.home.appendingPathComponent("secret").path
        let token = try await fp.run(["gateway", "token", "--user", "alice", "--secret-file", secret]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let gateway = try await GatewayProcess(runner: fp, db: fp.home.appendingPathComponent("gw.sqlite").path, secret: secret)
        defer { gateway.kill9() }
        fp.environment["FPRINT_TOKEN"] = token
        let r = try await fp.run(Self.walk + ["--publish", "--gateway", gateway.url, "--device", "tab-1"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json).filter { $0["summary"] == nil }
        #expect(rows.count > 80)
        #expect(r.stderr.contains("published \(rows.count) positions to http://127.0.0.1:\(gateway.port)/_positions"), "\(r.stderr)")

        let connection = try RawConnection(port: gateway.port)
        defer { connection.close() }
        connection.send("GET /_positions?map=J1NP HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        let answer = connection.readAll(timeout: 15)
        #expect(RawConnection.status(answer) == 200, "\(answer)")
        let body = try CanonicalJSON.parse(Data(try #require(answer.components(separatedBy: "\r\n\r\n").last).utf8))
        let latest = try #require(body["positions"]?.arrayValue?.first)
        #expect(body["positions"]?.arrayValue?.count == 1)
        #expect(latest["publisher"] == "alice/tab-1")
        // The last position printed is the last one published (the same rounding: x, y to 0.01).
        let last = try #require(rows.last)
        let x = try #require(latest["x"]?.doubleValue), y = try #require(latest["y"]?.doubleValue)
        #expect(abs(x - (last["x"] as? Double ?? .nan)) <= 0.005 && abs(y - (last["y"] as? Double ?? .nan)) <= 0.005)
    }

    @Test func aGatewayThatDoesNotAnswerIsSaidOnceAndTrackingGoesOn() async throws {
        var fp = try FprintRunner()
        fp.environment["FPRINT_TOKEN"] = "t"
        // Port 1: nobody listens there, the connection is refused.
        let r = try await fp.run(Self.walk + ["--publish", "--gateway", "http://127.0.0.1:1/fprint"])
        #expect(r.status == 75, "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "positions are not published").count == 2, "\(r.stderr)")
        #expect(r.stderr.contains("published 0 positions,"), "\(r.stderr)")
        // Every position was still printed, and the summary.
        #expect(r.lines.count > 80)
        #expect(try fp.json(try #require(r.lines.last))["summary"] != nil)
    }

    @Test(arguments: [
        (["track", "--map", "J1NP", "--device", "tab-1"], "--device names the publisher: add --publish"),
        (["track", "--map", "J1NP", "--publish", "--device", "a b"], "--device must be 1–64 letters"),
        (["track", "--map", "J1NP", "--gateway", "http://127.0.0.1:1/fprint"], "--gateway is where positions are published"),
    ])
    func badInput(args: [String], message: String) async throws {
        try await FprintRunner.expectRefusal(args, status: 64, message: message)
    }
}
