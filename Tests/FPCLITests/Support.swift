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
        env["FPRINT_DB"] = home.appendingPathComponent("test.sqlite").path
        environment = env
    }

    var db: String { home.appendingPathComponent("test.sqlite").path }

    /// Read commands refuse a database that does not exist (exit 66): tests
    /// of their other errors start from an empty one.
    func createEmptyDatabase() throws {
        _ = try SQLiteDocumentStore(path: db)
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
    /// seconds; `stdin` is written to its standard input (a password, say).
    @discardableResult
    func run(_ arguments: [String], interruptAfter: Double? = nil, stdin: String? = nil) throws -> Result {
        try Self.runProcess(Self.executable(), arguments, environment: environment, directory: home,
                            interruptAfter: interruptAfter, stdin: stdin)
    }

    /// Runs any executable (`started` gets its pid). Its stdout and stderr are
    /// read at the same time from the start (`PipeReader`), so a child filling
    /// either pipe never waits on a reader busy with the other one.
    static func runProcess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                           directory: URL? = nil, interruptAfter: Double? = nil, stdin: String? = nil,
                           started: (Int32) -> Void = { _ in }) throws -> Result {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try p.run()
        started(p.processIdentifier)
        let outReader = PipeReader(out.fileHandleForReading, name: "stdout")
        let errReader = PipeReader(err.fileHandleForReading, name: "stderr")
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        if let interruptAfter {
            Thread.sleep(forTimeInterval: interruptAfter)
            kill(p.processIdentifier, SIGINT)
        }
        let outData = outReader.waitForEnd()
        let errData = errReader.waitForEnd()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    func json(_ text: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [String: Any])
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
