import Foundation

/// `fprint gateway` on a free loopback port for a bench run, with a token for
/// its clients; killed by `stop`.
final class BenchGateway {
    let process: Process
    /// The database URL clients sync with.
    let url: String
    let token: String
    private let log = DataBox()

    init(fprint: String, db: String, secret: String, environment: [String: String], user: String = "bench") throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: fprint)
        process.arguments = ["gateway", "--port", "0", "--db", db, "--secret-file", secret]
        process.environment = environment
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        log.drain(err.fileHandleForReading)
        var port: Int?
        for _ in 0..<600 where port == nil {
            if let m = log.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:([0-9]+)\//) { port = Int(m.1) }
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw BenchError("the gateway did not start: \(log.text)")
        }
        url = "http://127.0.0.1:\(port)/fprint"
        let issued = try runMeasured(fprint, ["gateway", "token", "--user", user, "--secret-file", secret],
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
