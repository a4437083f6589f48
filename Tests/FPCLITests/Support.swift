import FPStore
import FPTestSupport
import Foundation
import Testing

/// Runs the built `fprint` binary the way a user does, in a sandbox of its
/// own: temporary XDG directories and database, a temporary working directory.
struct FprintRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// Every line, blank ones included.
        var allLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    }

    let home: URL
    var environment: [String: String]

    init() throws {
        home = try makeTemporaryFolder("fprint-cli")
        var env = ProcessInfo.processInfo.environment
        for key in ["FPRINT_DB", "FPRINT_CONFIG", "FPRINT_TOKEN"] { env[key] = nil }
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        env["XDG_STATE_HOME"] = home.appendingPathComponent("state").path
        env["FPRINT_DB"] = home.appendingPathComponent("test.sqlite").path
        environment = env
    }

    var db: String { home.appendingPathComponent("test.sqlite").path }

    /// Read commands refuse a database that does not exist (exit 66): tests
    /// of their other errors start from an empty one.
    func createEmptyDatabase() throws {
        _ = try SQLiteDocumentStore(path: db)
    }

    /// Runs `args` on an empty database: they must exit `status` with `message` on stderr.
    static func expectRefusal(_ args: [String], status: Int32, message: String) async throws {
        let fp = try FprintRunner()
        try fp.createEmptyDatabase()
        let r = try await fp.run(args)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
    }

    /// The `fprint` executable beside this test bundle (same build folder).
    static func executable() throws -> URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("fprint")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        Issue.record("the fprint executable was not found near \(exe.path); run `swift build` first")
        throw CancellationError()
    }

    /// Runs fprint with arguments; `interruptAfter` sends SIGINT after that many
    /// seconds, `interruptWhen` once it holds for the standard output so far
    /// (checked every 50 ms); `stdin` is written to its standard input (a password, say).
    @discardableResult
    func run(_ arguments: [String], interruptAfter: Double? = nil, interruptWhen: (@Sendable (String) -> Bool)? = nil,
             stdin: String? = nil) async throws -> Result {
        try await Self.runProcess(Self.executable(), arguments, environment: environment, directory: home,
                                  interruptAfter: interruptAfter, interruptWhen: interruptWhen, stdin: stdin)
    }

    /// Runs any executable (`started` gets its pid). Its stdout and stderr are
    /// read at the same time from the start (`PipeDrain`), so a child filling
    /// either pipe never waits on a reader busy with the other one. Waiting
    /// holds no thread of the cooperative pool (`Handover`).
    static func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           directory: URL? = nil, interruptAfter: Double? = nil,
                           interruptWhen: (@Sendable (String) -> Bool)? = nil, stdin: String? = nil,
                           started: (Int32) -> Void = { _ in }) async throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = stdin == nil ? FileHandle.nullDevice : input
        let exit = try await p.startAwaitingExit()
        started(p.processIdentifier)
        let outDrain = PipeDrain(out.fileHandleForReading, name: "stdout")
        let errDrain = PipeDrain(err.fileHandleForReading, name: "stderr")
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        if let interruptAfter {
            try await Task.sleep(nanoseconds: UInt64(interruptAfter * 1e9))
            try await handlesInterrupts(p.processIdentifier)
            kill(p.processIdentifier, SIGINT)
        }
        if let interruptWhen {
            // Watched from a thread of its own: a task on the cooperative pool
            // may wait seconds to resume while other suites compute.
            let pid = p.processIdentifier
            Thread {
                for _ in 0..<1500 where !Self.catchesInterrupts(pid) { usleep(20_000) }
                while p.isRunning, !interruptWhen(String(decoding: outDrain.soFar, as: UTF8.self)) { usleep(10_000) }
                kill(pid, SIGINT)
            }.start()
        }
        let outData = await outDrain.data()
        let errData = await errDrain.data()
        return Result(status: await exit.value(), stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Waits until the child catches or ignores SIGINT (its handler is in
    /// place), so an interrupt sent on a busy machine tests the handler rather
    /// than killing a process still loading. At most 30 s.
    static func handlesInterrupts(_ pid: Int32) async throws {
        for _ in 0..<1500 where !catchesInterrupts(pid) { try await Task.sleep(nanoseconds: 20_000_000) }
    }

    /// Whether the child catches or ignores SIGINT now (or is gone).
    static func catchesInterrupts(_ pid: Int32) -> Bool {
        let bit = UInt64(1) << UInt64(SIGINT - 1)
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return true }
        let masks = status.split(separator: "\n").compactMap { line -> UInt64? in
            guard line.hasPrefix("SigIgn:") || line.hasPrefix("SigCgt:") else { return nil }
            return UInt64(line.split(separator: "\t").last ?? "", radix: 16)
        }
        return masks.contains { $0 & bit != 0 }
    }

    func json(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [String: Any])
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The shipped app config and environments copied under `conf/Config`,
    /// beside `conf/Scenarios/scenarios.json` holding `scenariosJSON`; the
    /// `--config` arguments that name the copy.
    func configWithScenarios(_ scenariosJSON: String) throws -> [String] {
        let config = home.appendingPathComponent("conf/Config")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let shipped = Self.repositoryRoot.appendingPathComponent("Config")
        for item in ["app-config.json", "environments"] {
            try FileManager.default.copyItem(at: shipped.appendingPathComponent(item), to: config.appendingPathComponent(item))
        }
        let scenarios = home.appendingPathComponent("conf/Scenarios")
        try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
        try scenariosJSON.write(to: scenarios.appendingPathComponent("scenarios.json"), atomically: true, encoding: .utf8)
        return ["--config", config.appendingPathComponent("app-config.json").path]
    }
}

/// A TCP server on loopback that accepts connections and never answers (a
/// hung gateway): a python child, killed when this is let go.
final class SilentServer: @unchecked Sendable {
    let port: Int
    private let process = Process()
    private let exit: Handover<Int32>
    private let printed: PipeDrain

    init() async throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", "-c", """
            import socket
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
            print(s.getsockname()[1])
            held = []
            while True:
                held.append(s.accept()[0])
                print("accepted")
            """]
        let out = Pipe()
        process.standardOutput = out
        exit = try await process.startAwaitingExit()
        printed = PipeDrain(out.fileHandleForReading, name: "silent-server")
        var port: Int?
        for _ in 0..<1500 where port == nil {
            port = String(decoding: printed.soFar, as: UTF8.self).split(separator: "\n").first.flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        guard let port else {
            kill(process.processIdentifier, SIGKILL)
            throw RawHTTPError("the silent server did not start")
        }
        self.port = port
    }

    /// Waits until a client has connected (false if none did in `limit`,
    /// a bound only against hanging).
    func waitForAConnection(limit: Duration = .seconds(180)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if String(decoding: printed.soFar, as: UTF8.self).contains("accepted") { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func stop() async {
        kill(process.processIdentifier, SIGKILL)
        _ = await exit.value()
    }

    deinit { kill(process.processIdentifier, SIGKILL) }
}
