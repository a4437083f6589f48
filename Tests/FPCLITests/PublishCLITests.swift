import FPCore
import FPTestSupport
import Foundation
import Testing

/// `fprint track --publish` and `fprint walk --publish` against a real
/// `fprint gateway`: the live view's positions arrive, and a gateway that does
/// not answer never stops the tracking nor costs a walk its documents.
@Suite struct PublishCLITests {
    static let walk = ["track", "--simulate", "--scenario", "scenarioJ1NP1", "--seed", "7", "--fast", "--json",
                       "--method", "beacons", "--path-loss-exponent", "2.2"]

    @Test func everyPositionReachesTheGatewaysLiveViewAndThePublisherLeavesAtTheEnd() async throws {
        let (fp, gateway, token) = try await Self.gatewayAndRunner(user: "alice")
        defer { gateway.kill9() }
        // A map page's live view, open before the track starts (a session opened with the token).
        let stream = try await Self.liveView(port: gateway.port, token: token, map: "J1NP")
        let r = try await fp.run(Self.walk + ["--publish", "--gateway", gateway.url, "--device", "tab-1"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.lines.map(fp.json).filter { $0["summary"] == nil }
        #expect(rows.count > 80)
        #expect(r.stderr.contains("published \(rows.count) positions to http://127.0.0.1:\(gateway.port)/_positions"), "\(r.stderr)")

        let text = await stream.value()
        let events = text.components(separatedBy: "event: position\ndata: ").dropFirst().compactMap {
            try? CanonicalJSON.parse(Data(String($0.prefix { $0 != "\n" }).utf8))
        }
        #expect(events.count == rows.count, "\(events.count) of \(rows.count) positions seen live")
        #expect(events.allSatisfy { $0["publisher"] == "alice/tab-1" })
        // The last position printed is the last one published (the same rounding: x, y to 0.01).
        let last = try #require(rows.last), latest = try #require(events.last)
        let x = try #require(latest["x"]?.doubleValue), y = try #require(latest["y"]?.doubleValue)
        #expect(abs(x - (last["x"] as? Double ?? .nan)) <= 0.005 && abs(y - (last["y"] as? Double ?? .nan)) <= 0.005)
        // Then the track ended: the publisher left the map (no ghost), live and in the snapshot.
        #expect(text.hasSuffix("event: left\ndata: {\"publisher\":\"alice/tab-1\"}\n\n"), "\(text.suffix(300))")
        #expect(try await Self.latestPositions(port: gateway.port, token: token).isEmpty)
    }

    /// A dashboard live view of `map`, read on a thread of its own until its publisher leaves (or 5 minutes).
    static func liveView(port: Int, token: String, map: String) async throws -> Handover<String> {
        let login = try RawConnection(port: port)
        let form = "name=&password=\(token)"
        login.send("POST /_dashboard/login HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                   + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n" + form)
        let answer = await login.readAll(timeout: 60)
        login.close()
        let cookie = try #require(answer.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("set-cookie: authsession=") })
            .dropFirst("set-cookie: ".count).split(separator: ";")[0]
        let connection = try RawConnection(port: port)
        connection.send("GET /_dashboard/events?map=\(map) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: \(cookie)\r\n\r\n")
        // The stream is open (its first line came) before the caller publishes anything.
        var text = ""
        for _ in 0..<60 where !text.contains("retry:") { text += await connection.readAll(timeout: 1, stopAfterHeaders: false) }
        let done = Handover<String>()
        let opening = text
        Thread.detachNewThread {
            var text = opening
            let deadline = Date().addingTimeInterval(300)
            while !text.contains("event: left"), Date() < deadline { text += connection.readAllBlocking(timeout: 1) }
            connection.close()
            done.fulfil(Self.dechunked(String(text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))))
        }
        return done
    }

    /// A running `fprint gateway`, and a runner whose FPRINT_TOKEN is `user`'s token for it.
    static func gatewayAndRunner(user: String) async throws -> (FprintRunner, GatewayProcess, String) {
        var fp = try FprintRunner()
        let secret = fp.home.appendingPathComponent("secret").path
        let token = try await fp.run(["gateway", "token", "--user", user, "--secret-file", secret]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let gateway = try await GatewayProcess(runner: fp, db: fp.home.appendingPathComponent("gw.sqlite").path, secret: secret)
        fp.environment["FPRINT_TOKEN"] = token
        return (fp, gateway, token)
    }

    /// The JSON body of an authenticated GET, which must answer 200.
    static func get(port: Int, _ path: String, token: String) async throws -> JSONValue {
        let connection = try RawConnection(port: port)
        defer { connection.close() }
        connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n")
        let answer = await connection.readAll(timeout: 15)
        #expect(RawConnection.status(answer) == 200, "\(answer)")
        return try CanonicalJSON.parse(Data(try #require(answer.components(separatedBy: "\r\n\r\n").last).utf8))
    }

    /// A chunked body's data (each chunk is a size line, its bytes and a CRLF), on bytes:
    /// in a String "\r\n" is one character.
    static func dechunked(_ body: String) -> String {
        let bytes = Array(body.utf8)
        var out: [UInt8] = [], at = 0
        while let end = bytes[at...].firstIndex(of: 0x0D), end + 1 < bytes.count, bytes[end + 1] == 0x0A,
              let size = Int(String(decoding: bytes[at..<end], as: UTF8.self), radix: 16), size > 0 {
            let start = end + 2
            out += bytes[start..<min(start + size, bytes.count)]
            at = min(start + size + 2, bytes.count)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `GET /_positions?map=J1NP`: each publisher's latest position.
    static func latestPositions(port: Int, token: String) async throws -> [JSONValue] {
        try await get(port: port, "/_positions?map=J1NP", token: token)["positions"]?.arrayValue ?? []
    }

    @Test func aWalkPublishesWhereTheSurveyorShouldBeOnceASecond() async throws {
        let (fp, gateway, token) = try await Self.gatewayAndRunner(user: "sam")
        defer { gateway.kill9() }
        let stream = try await Self.liveView(port: gateway.port, token: token, map: "J1NP")
        let r = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1",
                                  "--publish", "--gateway", gateway.url])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 47)
        // One a second of the ~93 s route, the walk's own time.
        let published = try #require(r.stderr.firstMatch(of: /published ([0-9]+) positions to/).map { Int($0.1)! })
        #expect((90...95).contains(published), "\(r.stderr)")
        // The live view saw them (no accuracy: a target, not a fix), then the walker left the map.
        let text = await stream.value()
        let seen = text.components(separatedBy: "event: position\ndata: ").dropFirst().compactMap {
            try? CanonicalJSON.parse(Data(String($0.prefix { $0 != "\n" }).utf8))
        }
        #expect(seen.count == published && seen.allSatisfy { $0["publisher"] == "sam" && $0["accuracy_m"] == .null })
        #expect(text.hasSuffix("event: left\ndata: {\"publisher\":\"sam\"}\n\n"), "\(text.suffix(200))")
        // Positions are not documents: the gateway's database is still empty.
        #expect(try await Self.get(port: gateway.port, "/fprint", token: token)["doc_count"] == 0)
    }

    @Test func aWalkStoresItsDocumentsWhateverTheGatewayDoes() async throws {
        var fp = try FprintRunner()
        fp.environment["FPRINT_TOKEN"] = "t"
        let r = try await fp.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast", "--seed", "1",
                                  "--publish", "--gateway", "http://127.0.0.1:1/fprint"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 47)
        #expect(r.stderr.components(separatedBy: "positions are not published").count == 2, "\(r.stderr)")
        #expect(try await fp.run(["list", "--json"]).lines.count == 47)
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
