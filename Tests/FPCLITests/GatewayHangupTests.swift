import FPTestSupport
import Foundation
import Testing

/// SIGHUP (`systemctl reload fprint-gateway`) through the real binary: the
/// gateway keeps serving when it has no access log file, reads the users
/// file again even when an edit kept its size and times, and says so.
@Suite(.serialized) struct GatewayHangupTests {
    static func basic(_ name: String, _ password: String) -> String {
        "GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(Data("\(name):\(password)".utf8).base64EncodedString())\r\n"
    }

    /// Waits for `text` in the gateway's stderr; whether it came.
    static func waitFor(_ text: String, in server: GatewayProcess) async throws -> Bool {
        for _ in 0..<200 {
            if server.stderrLog.text.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func sighupWithoutAnAccessLogKeepsTheGatewayServing() async throws {
        let runner = try FprintRunner()
        let server = try await GatewayProcess(runner: runner, db: runner.home.appendingPathComponent("gw.sqlite").path,
                                              secret: runner.home.appendingPathComponent("secret").path)
        defer { server.kill9() }
        #expect(kill(server.process.processIdentifier, SIGHUP) == 0)
        #expect(try await Self.waitFor("SIGHUP: nothing to reload", in: server), "\(server.stderrLog.text)")
        #expect(server.process.isRunning, "SIGHUP ended the gateway: \(server.stderrLog.text)")
    }

    @Test func sighupRereadsTheUsersFileEvenWhenItLooksUnchanged() async throws {
        let gateway = try await GatewayAttackTests.Gateway(users: "alice:password-one\n")
        let users = gateway.runner.home.appendingPathComponent("users").path
        #expect(RawConnection.status(await gateway.request(Self.basic("alice", "password-one"))) == 200)
        // A new password of the same length, written in place, the file's times put back:
        // the gateway's look at size and times sees no change.
        var before = stat()
        #expect(stat(users, &before) == 0)
        let handle = try #require(FileHandle(forWritingAtPath: users))
        handle.write(Data("alice:password-two\n".utf8))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, users, &times, 0) == 0)
        #expect(RawConnection.status(await gateway.request(Self.basic("alice", "password-one"))) == 200)

        #expect(kill(gateway.pid, SIGHUP) == 0)
        #expect(try await Self.waitFor("SIGHUP: users file re-read (1 user), access log reopened", in: gateway.server),
                "\(gateway.server.stderrLog.text)")
        #expect(RawConnection.status(await gateway.request(Self.basic("alice", "password-two"))) == 200)
        #expect(RawConnection.status(await gateway.request(Self.basic("alice", "password-one"))) == 401)
    }
}
