import FPStore
import FPTestSupport
import Foundation
import GRDB
import Testing

/// Ctrl-C typed on a real terminal (a pseudo-terminal whose line discipline
/// turns 0x03 into SIGINT for the program), at every phase of every command
/// that runs for a while: what is promised is the exit status, what is
/// stored, and that the program stops at all; never how fast.
@Suite struct TerminalInterruptTests {
    // MARK: walk

    @Test func ctrlCDuringAWalksCountdownStoresNothing() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--ready", "600"])
        #expect(await term.waitFor("get ready: the walk starts in 600 s"), "\(term.transcript)")
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains("^C"))
        #expect(term.transcript.contains("interrupted: nothing stored"), "\(term.transcript)")
        #expect(try fp.storedCount() == 0)
    }

    /// The defect: once the countdown had ended, SIGINT and SIGTERM were
    /// left ignored (SigIgn 0x1005006) and the walk ran to its end.
    @Test(arguments: [SIGINT, SIGTERM])
    func aWalkStopsAfterItsCountdown(signal: Int32) async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--ready", "1"])
        // Once walking (the first progress after "go"), on the terminal's reader thread.
        let seen = Handover<SignalDispositions?>()
        term.when("go: walk with the target") { term in
            term.when("docs") { term in
                seen.fulfil(try? SignalDispositions(pid: term.pid))
                if signal == SIGINT { try? term.pressCtrlC() } else { kill(term.pid, SIGTERM) }
            }
        }
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        // Caught, not ignored: a caught signal also reaches the programs fprint runs as the default again.
        let dispositions = try #require(await seen.value())
        #expect(dispositions.caught(SIGINT) && dispositions.caught(SIGTERM), "\(dispositions)")
        #expect(!dispositions.ignored(SIGINT) && !dispositions.ignored(SIGTERM), "\(dispositions)")
        #expect(term.transcript.contains("interrupted: nothing stored"), "\(term.transcript)")
        #expect(try fp.storedCount() == 0)
    }

    /// A two-document walk on a terminal whose store will wait: another
    /// writer takes the database's lock once the walk starts (200 map units
    /// at the J scale: 4 m, 4 s at 1 m/s, two 2 s documents).
    static func shortWalkWhoseStoreWaits(_ fp: FprintRunner) throws -> (TerminalSession, LockWhen) {
        let config = try fp.configWithScenarios("""
            {"scenarios": [{"scenarioID": "short", "name": "short", "mapID": "J1NP", "points": [{"X": 100, "Y": 100}, {"X": 300, "Y": 100}]}]}
            """)
        let term = try fp.onTerminal(["walk", "--scenario", "short", "--simulate", "--ready", "1"] + config)
        return (term, LockWhen("go: walk with the target", on: term, path: fp.db))
    }

    /// Once recorded, a walk is stored whatever comes: Ctrl-C while the
    /// store waits for another writer's lock lets the store finish, says
    /// so, and exits 130.
    @Test func ctrlCWhileAWalkIsStoredKeepsIt() async throws {
        let fp = try FprintRunner()
        let (term, locker) = try Self.shortWalkWhoseStoreWaits(fp)
        term.when("storing the walk's 2 documents…") { try? $0.pressCtrlC() }
        // Let go as soon as fprint says it is finishing (before SQLite's 10 s busy timeout).
        locker.release(when: "finishing first: storing the walk's 2 documents", on: term)
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(locker.wasReleased)
        #expect(term.transcript.contains("interrupted: storing the walk's 2 documents was finished before stopping"),
                "\(term.transcript)")
        #expect(try fp.storedCount() == 2)
    }

    @Test func aSecondCtrlCLeavesAtOnce() async throws {
        let fp = try FprintRunner()
        let (term, locker) = try Self.shortWalkWhoseStoreWaits(fp)
        term.when("storing the walk's 2 documents…") { try? $0.pressCtrlC() }
        term.when("finishing first") { try? $0.pressCtrlC() }
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains("interrupted again: leaving now"), "\(term.transcript)")
        try await locker.release()
        // The write never got the lock: nothing half-stored.
        #expect(try fp.storedCount() == 0)
    }

    // MARK: measure

    @Test func ctrlCDuringAMeasurementStoresNothing() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--duration", "60"])
        term.when("measure J1NP (363, 701)") { try? $0.pressCtrlC() }
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains("interrupted: nothing stored"), "\(term.transcript)")
        #expect(try fp.storedCount() == 0)
    }

    @Test func ctrlCWhileAMeasurementIsStoredKeepsIt() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--duration", "5"])
        let locker = LockWhen("measure J1NP (363, 701)", on: term, path: fp.db)
        term.when("storing the measurement…") { try? $0.pressCtrlC() }
        locker.release(when: "finishing first: storing the measurement", on: term)
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(locker.wasReleased)
        #expect(try fp.storedCount() == 1)
    }

    // MARK: commands that end with Ctrl-C

    @Test func ctrlCEndsLiveTrackingWithItsSummary() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["track", "--simulate", "--scenario", "scenarioJ1NP1", "--method", "beacons", "--truth"])
        // The first position (its accuracy) after the start line, on the reader thread.
        term.when("tracking: ") { term in term.when("±") { try? $0.pressCtrlC() } }
        // Ctrl-C is how live tracking ends: the summary comes and it is no failure.
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        #expect(term.transcript.contains("tracking error: median"), "\(term.transcript)")
    }

    @Test func ctrlCEndsAScan() async throws {
        let fp = try FprintRunner()
        let capture = FprintRunner.repositoryRoot.appendingPathComponent("Tests/FPHCITests/Fixtures/captures/btvirt-vm-monitor.btsnoop").path
        let term = try fp.onTerminal(["scan", "--ble-source", "btsnoop:\(capture)", "--duration", "600"])
        #expect(await term.waitFor { $0.contains("ADDRESS") || $0.contains("address") }, "\(term.transcript)")
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
    }

    @Test func ctrlCStopsAProbeWaitingOnASilentServer() async throws {
        let fp = try FprintRunner()
        let server = try await SilentServer()
        let term = try fp.onTerminal(["probe", "--server", "127.0.0.1:\(server.port)", "--token", "t.t.t", "--pings", "0"])
        #expect(await server.waitForAConnection(), "\(term.transcript)")
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        await server.stop()
    }

    @Test func ctrlCStopsASyncWaitingOnASilentServer() async throws {
        let fp = try FprintRunner()
        let server = try await SilentServer()
        let term = try fp.onTerminal(["sync", "--gateway", "http://127.0.0.1:\(server.port)/fprint", "--token", "t.t.t"])
        #expect(await server.waitForAConnection(), "\(term.transcript)")
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains("interrupted"), "\(term.transcript)")
        await server.stop()
    }

    // MARK: servers with a live stream open

    /// The gateway with a continuous changes feed open stops cleanly: the
    /// feed is ended by the server, and the stop needs no forced exit.
    @Test func ctrlCStopsAGatewayWithAnOpenFeed() async throws {
        let fp = try FprintRunner()
        let secret = fp.home.appendingPathComponent("secret").path
        let token = try await fp.run(["gateway", "token", "--user", "alice", "--secret-file", secret]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let term = try fp.onTerminal(["gateway", "--port", "0", "--db", fp.home.appendingPathComponent("gw.sqlite").path,
                                      "--secret-file", secret])
        let port = try #require(await term.port(after: "listening on http://127.0.0.1:"))
        let feed = try RawConnection(port: port)
        defer { feed.close() }
        feed.send("GET /fprint/_changes?feed=continuous&heartbeat=1000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\r\n")
        #expect(RawConnection.status(await feed.readAll(timeout: 60, stopAfterHeaders: true)) == 200)
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        #expect(!term.transcript.contains("still stopping"), "\(term.transcript)")
        _ = await feed.readAll(timeout: 60)
        #expect(await feed.isClosedByPeer(), "the feed was not ended by the server")
    }

    /// The local dashboard with a map page's live view open: it used to wait
    /// for the browser to go away (29–60 s). The stream's last event says the
    /// server stopped (the Survey page says so from it); with no measurement
    /// running Ctrl-C is the server's normal end, exit 0, and a line says so.
    @Test func ctrlCStopsADashboardWithALiveViewOpen() async throws {
        let fp = try FprintRunner()
        _ = try await fp.run(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast", "--duration", "5"])
        let term = try fp.onTerminal(["dashboard", "--port", "0"])
        let port = try #require(await term.port(after: "serving http://127.0.0.1:"))
        let events = try RawConnection(port: port)
        defer { events.close() }
        events.send("GET /_dashboard/events?map=J1NP HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        #expect(RawConnection.status(await events.readAll(timeout: 60, stopAfterHeaders: true)) == 200)
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        #expect(term.transcript.contains("fprint dashboard: stopped; no measurement was running"), "\(term.transcript)")
        #expect(!term.transcript.contains("still stopping"), "\(term.transcript)")
        let stream = await events.readAll(timeout: 60)
        #expect(stream.contains("event: stopped\ndata: {\"job\":null}\n\n"), "\(stream)")
        #expect(await events.isClosedByPeer(), "the live view was not ended by the server")
    }

    /// Ctrl-C with a Survey page measurement running cuts it short, as it
    /// cuts `fprint measure` short: exit 130 and a line naming what was
    /// discarded (it exited 0, saying nothing).
    @Test func ctrlCDuringASurveyMeasurementExits130() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["dashboard", "--port", "0", "--simulate", "--duration", "60"])
        let port = try #require(await term.port(after: "serving http://127.0.0.1:"))
        let page = try RawConnection(port: port)
        defer { page.close() }
        page.send("GET /_dashboard/survey/maps/J1NP HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
        let html = await page.readAll(timeout: 60)
        let token = try #require(html.firstMatch(of: /data-token="([0-9a-f]{64})"/)?.1)
        let form = "map=J1NP&x=363&y=701&token=\(token)"
        let post = try RawConnection(port: port)
        defer { post.close() }
        post.send("POST /_dashboard/survey/measure HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)")
        #expect(RawConnection.status(await post.readAll(timeout: 60)) == 202)
        try term.pressCtrlC()
        #expect(await term.exitStatus() == 130, "\(term.transcript)")
        #expect(term.transcript.contains(
            "interrupted: the dashboard stopped; the measurement at (363, 701) on J1NP in progress was discarded; nothing of it was stored"),
                "\(term.transcript)")
        #expect(try fp.storedCount() == 0)
    }
}

/// Progress lines on an 80-column terminal: every rewrite fits, so none
/// leaves a wrapped row behind.
@Suite struct TerminalWidthTests {
    @Test(arguments: [80, 50])
    func walkProgressFitsTheTerminal(columns: Int) async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["walk", "--scenario", "scenarioJ1NP1", "--simulate", "--fast"], columns: UInt16(columns))
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        let progress = term.rows.filter { $0.hasPrefix("walk  ") }
        #expect(!progress.isEmpty, "\(term.transcript)")
        for row in progress { #expect(row.count < columns, "\(row.count) columns: \(row)") }
        // What matters most stays: the time, and on 80 columns the next waypoint in metres.
        #expect(progress.contains { $0.contains(" of 94 s") }, "\(progress)")
        if columns >= 80 {
            #expect(progress.contains { $0.contains("next: waypoint") && $0.contains(" m ") && $0.contains("doc") }, "\(progress)")
        }
    }

    @Test func measureProgressFitsTheTerminal() async throws {
        let fp = try FprintRunner()
        let term = try fp.onTerminal(["measure", "--map", "J1NP", "--x", "363", "--y", "701", "--simulate", "--fast"], columns: 80)
        #expect(await term.exitStatus() == 0, "\(term.transcript)")
        let progress = term.rows.filter { $0.hasPrefix("measure J1NP") }
        #expect(!progress.isEmpty, "\(term.transcript)")
        for row in progress { #expect(row.count < 80, "\(row.count) columns: \(row)") }
    }
}

extension FprintRunner {
    /// Runs fprint on a pseudo-terminal of its own, `columns` wide.
    func onTerminal(_ arguments: [String], columns: UInt16 = 80) throws -> TerminalSession {
        try TerminalSession(Self.executable().path, arguments, environment: environment, directory: home.path, columns: columns)
    }

    /// Documents in the runner's database (0 when there is none yet).
    func storedCount() throws -> Int {
        guard FileManager.default.fileExists(atPath: db) else { return 0 }
        return try SQLiteDocumentStore(path: db, access: .readOnly).count()
    }
}

extension TerminalSession {
    /// The port printed after `prefix` (a server's first line).
    func port(after prefix: String) async -> Int? {
        guard await waitFor({ $0.contains(prefix) && $0.components(separatedBy: prefix).last?.contains("/") == true }) else { return nil }
        return Int(transcript.components(separatedBy: prefix).last?.prefix { $0.isNumber } ?? "")
    }
}

/// SQLite's write lock on `path`, taken the moment `text` appears on the
/// terminal (on its reader thread: before the program gets further).
final class LockWhen: Sendable {
    private let taken = Handover<Result<DatabaseWriteLock, any Error>>()
    private let released = Handover<Bool>()

    init(_ text: String, on term: TerminalSession, path: String) {
        let taken = self.taken
        term.when(text) { _ in taken.fulfil(Result { try DatabaseWriteLock(path: path) }) }
    }

    /// Lets go the moment `text` appears, on the terminal's reader thread.
    func release(when text: String, on term: TerminalSession) {
        let (taken, released) = (self.taken, self.released)
        term.when(text) { _ in
            guard let lock = try? taken.current?.get() else { return }
            lock.releaseNow()
            released.fulfil(true)
        }
    }

    var wasReleased: Bool { released.isFulfilled }

    func release() async throws { try await taken.value().get().release() }
}

/// Another process's writer holding SQLite's write lock until released.
struct DatabaseWriteLock: Sendable {
    let queue: DatabaseQueue

    init(path: String) throws {
        var config = Configuration()
        config.allowsUnsafeTransactions = true  // the transaction outlives one access, on purpose
        queue = try DatabaseQueue(path: path, configuration: config)
        try queue.writeWithoutTransaction { try $0.execute(sql: "BEGIN IMMEDIATE") }
    }

    func release() async throws {
        try await queue.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
    }

    /// On a plain thread (not the cooperative pool).
    func releaseNow() {
        try? queue.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
    }
}

/// A process's signal dispositions, from /proc/PID/status.
struct SignalDispositions: CustomStringConvertible {
    let ignoredMask: UInt64
    let caughtMask: UInt64

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func mask(_ name: String) -> UInt64 {
            status.split(separator: "\n").first { $0.hasPrefix(name) }
                .flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) } ?? 0
        }
        ignoredMask = mask("SigIgn:")
        caughtMask = mask("SigCgt:")
    }

    func ignored(_ signal: Int32) -> Bool { ignoredMask & (1 << UInt64(signal - 1)) != 0 }
    func caught(_ signal: Int32) -> Bool { caughtMask & (1 << UInt64(signal - 1)) != 0 }
    var description: String { "SigIgn \(String(ignoredMask, radix: 16)), SigCgt \(String(caughtMask, radix: 16))" }
}
