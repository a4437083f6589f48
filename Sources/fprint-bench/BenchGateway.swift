import Foundation

/// `fprint gateway` on a free loopback port for a bench run, with a token for
/// its clients; killed by `stop`.
final class BenchGateway {
    let process: Process
    let port: Int
    /// The database URL clients sync with.
    let url: String
    /// A token for `user`.
    let token: String
    private let log = DataBox()

    /// `users`: the gateway's users file (`--users`), where `user` must be.
    init(fprint: String, db: String, secret: String, environment: [String: String], user: String = "bench",
         users: String? = nil) throws {
        let usersArguments = users.map { ["--users", $0] } ?? []
        process = Process()
        process.executableURL = URL(fileURLWithPath: fprint)
        process.arguments = ["gateway", "--port", "0", "--db", db, "--secret-file", secret] + usersArguments
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        log.drain(err.fileHandleForReading)
        var found: Int?
        for _ in 0..<600 where found == nil {
            if let m = log.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:([0-9]+)\//) { found = Int(m.1) }
            if found == nil { usleep(50_000) }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw BenchError("the gateway did not start: \(log.text)")
        }
        port = found
        url = "http://127.0.0.1:\(found)/fprint"
        let issued = try runMeasured(fprint, ["gateway", "token", "--user", user, "--secret-file", secret] + usersArguments,
                                     environment: environment, samplePeak: false)
        token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard issued.status == 0, !token.isEmpty else {
            kill(process.processIdentifier, SIGKILL)
            throw BenchError("gateway token failed: \(issued.stderr)")
        }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
