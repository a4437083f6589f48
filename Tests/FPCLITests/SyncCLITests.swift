import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// `fprint gateway` as a child process on a free loopback port, optionally
/// under a lower open-file limit. Stopped with SIGKILL (the gateway itself
/// unblocks SIGTERM, which children of the test process inherit blocked).
final class GatewayProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    /// The database file it serves.
    let db: String
    let stderrLog: StderrCollector
    /// Its exit status, once it has exited.
    let exit: Handover<Int32>

    var url: String { "http://127.0.0.1:\(port)/fprint" }

    init(runner: FprintRunner, db: String, secret: String, extra: [String] = [], openFiles: Int? = nil) async throws {
        self.db = db
        let arguments = ["gateway", "--port", "0", "--db", db, "--secret-file", secret] + extra
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", try FprintRunner.executable().path] + arguments
        } else {
            process.executableURL = try FprintRunner.executable()
            process.arguments = arguments
        }
        process.environment = runner.environment
        process.currentDirectoryURL = runner.home
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        exit = try await process.startAwaitingExit()
        stderrLog = StderrCollector(err.fileHandleForReading)
        // A bound only against hanging: a debug gateway beside a busy suite may take long to start.
        let deadline = Date().addingTimeInterval(180)
        var found: Int?
        while found == nil, Date() < deadline, process.isRunning {
            if let match = stderrLog.text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:([0-9]+)\//) {
                found = Int(match.1)
            } else {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            _ = await exit.value()
            Issue.record("the gateway did not start: \(stderrLog.text)")
            throw CancellationError()
        }
        port = found
    }

    /// Kills it; returns at once (a `defer` cannot wait). SIGKILL leaves nothing to flush.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Kills it and waits until it is gone, so its port and files are free.
    func kill9AndWait() async {
        kill9()
        _ = await exit.value()
    }

    deinit { kill9() }
}

/// Collects a pipe's output on a background thread, closing it at its end
/// (as `PipeDrain` does, and for the same reason).
final class StderrCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            readToEnd(handle, name: "gateway-stderr") { chunk in
                lock.lock()
                data.append(chunk)
                lock.unlock()
            }
            try? handle.close()
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Runs fprint in the background (for killing the gateway mid-sync); returns its exit to await.
func startFprint(_ runner: FprintRunner, _ arguments: [String]) async throws -> Handover<Int32> {
    try await BackgroundFprint(runner, arguments).exit
}

/// fprint running in the background: its pid, its exit to await, and what
/// it printed so far (both pipes drained, so a chatty child never blocks).
struct BackgroundFprint: Sendable {
    let pid: Int32
    let exit: Handover<Int32>
    let stdout: PipeDrain
    let stderr: PipeDrain

    init(_ runner: FprintRunner, _ arguments: [String]) async throws {
        let p = Process()
        p.executableURL = try FprintRunner.executable()
        p.arguments = arguments
        p.environment = runner.environment
        p.currentDirectoryURL = runner.home
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        exit = try await p.startAwaitingExit()
        pid = p.processIdentifier
        stdout = PipeDrain(out.fileHandleForReading, name: "stdout")
        stderr = PipeDrain(err.fileHandleForReading, name: "stderr")
    }
}

/// Every document of a store file: id → winning revision (tombstones marked).
func documentSet(_ path: String) throws -> [String: String] {
    let store = try SQLiteDocumentStore(path: path)
    var out: [String: String] = [:]
    for change in try store.changeFeed(since: 0, limit: Int.max) {
        out[change.id] = change.rev.description + (change.deleted ? "-deleted" : "")
    }
    return out
}

@Suite(.serialized) struct SyncCLITests {
    struct Setup {
        var runner: FprintRunner
        var gatewayDB: String
        var secret: String
        var token: String
    }

    func setup(user: String = "alice") async throws -> Setup {
        var runner = try FprintRunner()
        let gatewayDB = runner.home.appendingPathComponent("gateway.sqlite").path
        let secret = runner.home.appendingPathComponent("gw-secret").path
        let issued = try await runner.run(["gateway", "token", "--user", user, "--secret-file", secret])
        #expect(issued.status == 0, "\(issued.stderr)")
        let token = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3)
        // The secret file was created private
        let mode = try FileManager.default.attributesOfItem(atPath: secret)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        runner.environment["FPRINT_TOKEN"] = token
        return Setup(runner: runner, gatewayDB: gatewayDB, secret: secret, token: token)
    }

    @Test func syncStatusAndShowConflictsThroughTheBinary() async throws {
        var s = try await setup()
        let gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret)
        defer { gateway.kill9() }
        var outputs: [String] = []
        let walk = try await s.runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
        #expect(walk.status == 0)
        let sync = try await s.runner.run(["sync", "--gateway", gateway.url])
        outputs += [sync.stdout, sync.stderr]
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("sent 47 of 47"))
        #expect(sync.stderr.contains("push: sent 47/47"))  // piped: progress lines
        #expect(try documentSet(s.gatewayDB) == documentSet(s.runner.db))

        // A second device of alice's pulls everything, then both edit one doc → conflict
        var other = s.runner
        other.environment["FPRINT_DB"] = s.runner.home.appendingPathComponent("other.sqlite").path
        let pulled = try await other.run(["sync", "--gateway", gateway.url, "--pull-only"])
        outputs += [pulled.stdout, pulled.stderr]
        #expect(pulled.stdout.contains("received 47 of 47"), "\(pulled.stdout) \(pulled.stderr)")
        let id = try #require(walk.lines.first)
        for (path, note) in [(s.runner.db, "here"), (other.environment["FPRINT_DB"]!, "there")] {
            let store = try SQLiteDocumentStore(path: path)
            let doc = try #require(try store.document(id: id, includeDeleted: false))
            var body = doc.body
            body["note"] = .string(note)
            try store.update(id: id, body: body, expected: doc.rev)
        }
        for runner in [s.runner, other, s.runner] {
            let r = try await runner.run(["sync", "--gateway", gateway.url])
            outputs += [r.stdout, r.stderr]
            #expect(r.status == 0, "\(r.stderr)")
        }
        let show = try await s.runner.run(["show", id])
        #expect(show.stdout.contains("conflicts"), "\(show.stdout)")
        #expect(try documentSet(s.runner.db) == documentSet(other.environment["FPRINT_DB"]!))

        // No-op sync and status (the first one still examines what the last pull stored)
        _ = try await s.runner.run(["sync", "--gateway", gateway.url])
        let fileBefore = try Data(contentsOf: URL(fileURLWithPath: s.runner.db))
        let noop = try await s.runner.run(["sync", "--gateway", gateway.url])
        #expect(noop.stdout.contains("sent 0 of 0") && noop.stdout.contains("received 0 of 0"), "\(noop.stdout)")
        #expect(noop.status == 0)
        // Nothing to move, nothing written: the database file is as it was (the
        // last-sync note lives outside it).
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.runner.db)) == fileBefore)
        let status = try await s.runner.run(["status", "--gateway", gateway.url])
        outputs += [status.stdout, status.stderr]
        #expect(status.stdout.contains("pending:    0"))
        #expect(status.stdout.contains("credential: token of user alice from FPRINT_TOKEN"), "\(status.stdout)")
        #expect(status.stdout.contains("last sync:  20"))
        let notes = s.runner.home.appendingPathComponent("state/fprint/last-sync")
        // One note per database (this one and the second device's), 0600.
        let noteFiles = try FileManager.default.contentsOfDirectory(atPath: notes.path)
        #expect(noteFiles.count == 2 && noteFiles.allSatisfy { $0.hasSuffix(".json") }, "\(noteFiles)")
        for file in noteFiles {
            let mode = try FileManager.default.attributesOfItem(atPath: notes.appendingPathComponent(file).path)[.posixPermissions]
            #expect(mode as? Int == 0o600)
        }

        // Bad token: exit 77 and the token never printed
        s.runner.environment["FPRINT_TOKEN"] = s.token + "x"
        let bad = try await s.runner.run(["sync", "--gateway", gateway.url])
        outputs += [bad.stdout, bad.stderr]
        #expect(bad.status == 77, "\(bad.stderr)")
        #expect(bad.stderr.hasPrefix("error: authentication rejected"))

        // Unreachable gateway: exit 75
        let closed = try await s.runner.run(["sync", "--gateway", "http://127.0.0.1:1/fprint"])
        #expect(closed.status == 75, "\(closed.stderr)")

        // The token appears in no output, no log and no database file
        outputs.append(gateway.stderrLog.text)
        for text in outputs { #expect(!text.contains(s.token)) }
        for file in try FileManager.default.contentsOfDirectory(atPath: s.runner.home.path) where file.contains("sqlite") {
            let data = try Data(contentsOf: s.runner.home.appendingPathComponent(file))
            #expect(data.range(of: Data(s.token.utf8)) == nil, "token found in \(file)")
            #expect(data.range(of: Data(s.token.split(separator: ".")[2].utf8)) == nil, "token signature found in \(file)")
        }
        // Bodies are stored compressed, so the byte scan above cannot see into them: read them back
        for path in [s.runner.db, other.environment["FPRINT_DB"]!, s.gatewayDB] {
            let store = try SQLiteDocumentStore(path: path)
            let bodies = try store.changes(since: 0, limit: Int.max).map { CanonicalJSON.string($0.body) }
            #expect(!bodies.isEmpty)
            #expect(bodies.allSatisfy { !$0.contains(s.token) && !$0.contains(String(s.token.split(separator: ".")[2])) }, "token in a body of \(path)")
        }
    }

    /// A proxy named in the environment cannot reach this machine's loopback:
    /// a gateway on 127.0.0.1 is asked directly (libcurl alone would send the
    /// request to the proxy, here a port nobody listens on).
    @Test func aLoopbackGatewayIsAskedDirectlyWhateverProxyIsSet() async throws {
        var s = try await setup()
        let gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret)
        defer { gateway.kill9() }
        let measured = try await s.runner.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701",
                                               "--simulate", "--fast", "--duration", "5"])
        #expect(measured.status == 0, "\(measured.stderr)")
        for key in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            s.runner.environment[key] = "http://127.0.0.1:9"
        }
        for key in ["no_proxy", "NO_PROXY"] { s.runner.environment[key] = nil }
        let sync = try await s.runner.run(["sync", "--gateway", gateway.url])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("sent 1 of 1"), "\(sync.stdout)")
        #expect(try documentSet(s.gatewayDB) == documentSet(s.runner.db))
    }

    @Test func loginStoresAPrivateTokenFromStdin() async throws {
        var s = try await setup()
        let users = s.runner.home.appendingPathComponent("users").path
        try "carol:pa55word\n".write(toFile: users, atomically: true, encoding: .utf8)
        chmod(users, 0o600)
        let gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret, extra: ["--users", users])
        defer { gateway.kill9() }
        s.runner.environment["FPRINT_TOKEN"] = nil
        let login = try await s.runner.run(["login", "--user", "carol", "--gateway", gateway.url], stdin: "pa55word\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(!login.stderr.contains("pa55word"))
        let tokenPath = s.runner.home.appendingPathComponent("config/fprint/credentials.json").path
        let mode = try FileManager.default.attributesOfItem(atPath: tokenPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try s.runner.createEmptyDatabase()
        let status = try await s.runner.run(["status", "--gateway", gateway.url])
        #expect(status.stdout.contains("token of user carol from the credentials file"), "\(status.stdout)")
        let wrong = try await s.runner.run(["login", "--user", "carol", "--gateway", gateway.url], stdin: "nope\n")
        #expect(wrong.status == 77)
    }

    /// One-letter relative paths (Foundation's NSString path code traps on them):
    /// the secret file is made in the working directory and the gateway serves a
    /// relative `--config`.
    @Test func oneLetterRelativePathsWork() async throws {
        var runner = try FprintRunner()
        let issued = try await runner.run(["gateway", "token", "--user", "alice", "--secret-file", "s"])
        #expect(issued.status == 0, "\(issued.stderr)")
        #expect(FileManager.default.fileExists(atPath: runner.home.appendingPathComponent("s").path))
        let config = try String(contentsOf: FprintRunner.repositoryRoot.appendingPathComponent("Config/app-config.json"), encoding: .utf8)
        try config.write(to: runner.home.appendingPathComponent("c"), atomically: true, encoding: .utf8)
        runner.environment["FPRINT_CONFIG"] = "c"
        let gateway = try await GatewayProcess(runner: runner, db: "g", secret: "s")
        defer { gateway.kill9() }
        #expect(gateway.process.isRunning, "\(gateway.stderrLog.text)")
        #expect(FileManager.default.fileExists(atPath: runner.home.appendingPathComponent("g").path))
    }

    /// SIGKILL the gateway in the middle of a push and of a pull, restart it,
    /// sync again: both sides end with identical document sets.
    @Test func gatewayKilledMidPushAndMidPullConverges() async throws {
        let s = try await setup()
        for _ in 0..<3 {
            let walk = try await s.runner.run(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"])
            #expect(walk.status == 0)
        }
        let local = try documentSet(s.runner.db)
        #expect(local.count == 141)

        // Push in batches of one; kill the gateway once some have landed.
        var gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret)
        let push = try await startFprint(s.runner, ["sync", "--gateway", gateway.url, "--push-only", "--batch-size", "1"])
        try await waitUntil { (try? documentSet(s.gatewayDB).count) ?? 0 >= 20 }
        await gateway.kill9AndWait()
        #expect(await push.value() == 75)
        let partial = try documentSet(s.gatewayDB).count
        #expect(partial > 0 && partial < 141, "partial \(partial)")

        gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret)
        let resumed = try await s.runner.run(["sync", "--gateway", gateway.url, "--push-only"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try documentSet(s.gatewayDB) == documentSet(s.runner.db))

        // Pull into a new store in batches of one; kill mid-way.
        var other = s.runner
        let otherDB = s.runner.home.appendingPathComponent("other.sqlite").path
        other.environment["FPRINT_DB"] = otherDB
        let pull = try await startFprint(other, ["sync", "--gateway", gateway.url, "--pull-only", "--batch-size", "1"])
        try await waitUntil { (try? documentSet(otherDB).count) ?? 0 >= 20 }
        await gateway.kill9AndWait()
        #expect(await pull.value() == 75)
        gateway = try await GatewayProcess(runner: s.runner, db: s.gatewayDB, secret: s.secret)
        defer { gateway.kill9() }
        let again = try await other.run(["sync", "--gateway", gateway.url])
        #expect(again.status == 0, "\(again.stderr)")
        let final = try documentSet(otherDB)
        #expect(final.count == 141)
        #expect(try final == documentSet(s.gatewayDB))
        #expect(try final == documentSet(s.runner.db))
    }

    func waitUntil(timeout: Double = 60, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        Issue.record("condition not met within \(timeout) s")
    }
}
