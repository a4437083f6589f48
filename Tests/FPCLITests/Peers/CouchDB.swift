import FPNet
import FPTestSupport
import Foundation
import Testing

/// A real Apache CouchDB 3.5.0 (one node or a cluster) started by
/// `couchdb.sh` in a temporary folder, and plain HTTP to it. A watcher
/// process stops it when the test process is gone, however it ended, so no
/// Erlang VM outlives a crashed or killed test run.
final class CouchDB: Sendable {
    let folder: URL
    /// `http://127.0.0.1:PORT`, one per node, without credentials.
    let nodes: [URL]
    let pids: [Int32]
    static let admin = (name: "admin", password: "adminpw")
    static let transport = CurlHTTPTransport(userAgent: "fprint-tests")

    private init(folder: URL, nodes: [URL], pids: [Int32]) {
        self.folder = folder
        self.nodes = nodes
        self.pids = pids
    }

    /// The first node's root.
    var url: URL { nodes[0] }

    /// `http://admin:adminpw@127.0.0.1:PORT/db` of `node`.
    func adminURL(_ db: String, node: Int = 0) -> String {
        "http://\(Self.admin.name):\(Self.admin.password)@\(nodes[node].host!):\(nodes[node].port!)/\(db)"
    }

    /// `http://127.0.0.1:PORT/db` of `node`.
    func plainURL(_ db: String, node: Int = 0) -> String { nodes[node].appendingPathComponent(db).absoluteString }

    /// Starts `count` nodes (1: `couchdb.sh start`, more: `couchdb.sh cluster`).
    /// `couchdb.sh` gives a node 30 s to answer; on a machine busy with the
    /// whole suite a node of a cluster may take longer, so a failed start is
    /// cleared away and tried again, four times in all. Starts take turns
    /// (`PeerStarts`): the single node and the cluster's three, all booting
    /// Erlang VMs at once at the start of a loaded run, once left a cluster
    /// node unanswered for 30 s three times over (fresh-clone CI, load 7).
    static func start(nodes count: Int = 1) async throws -> CouchDB {
        if let missing = RealPeers.couchDBMissing {
            throw PeerError("\(missing) (FPRINT_REQUIRE_REAL=1: run .ci/run's apt line; the peers are in ../shared/peers)")
        }
        await PeerStarts.shared.begin()
        do {
            let couch = try await startTrying(nodes: count)
            await PeerStarts.shared.end()
            return couch
        } catch {
            await PeerStarts.shared.end()
            throw error
        }
    }

    private static func startTrying(nodes count: Int) async throws -> CouchDB {
        var failures: [String] = []
        for _ in 1...4 {
            let folder = try makeTemporaryFolder("couchdb")
            try await watch(folder)
            do {
                return try await start(nodes: count, in: folder)
            } catch {
                failures.append("\(error)")
                await killNodes(in: folder)
            }
        }
        throw PeerError(failures.joined(separator: "; then: "))
    }

    private static func start(nodes count: Int, in folder: URL) async throws -> CouchDB {
        let script = RealPeers.folder.appendingPathComponent("couchdb.sh").path
        let arguments = count == 1 ? [script, "start", folder.path] : [script, "cluster", folder.path, String(count)]
        let started = try await runScript(arguments)
        var urls: [Int: URL] = [:], pids: [Int: Int32] = [:]
        for line in started.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let index = Int(parts[0].split(separator: "_").last ?? "") ?? 1
            if parts[0].hasPrefix("COUCH_URL"), let given = URLComponents(string: parts[1]) {
                urls[index] = URL(string: "http://\(given.host ?? "127.0.0.1"):\(given.port ?? 5984)")
            } else if parts[0].hasPrefix("COUCH_PID") {
                pids[index] = Int32(parts[1])
            }
        }
        let nodes = (1...count).compactMap { urls[$0] }, processes = (1...count).compactMap { pids[$0] }
        guard nodes.count == count, processes.count == count else {
            throw PeerError("couchdb.sh did not start \(count) node(s): \(started.stderr)")
        }
        let couch = CouchDB(folder: folder, nodes: nodes, pids: processes)
        // CouchDB 3.5 hashes passwords with 600,000 PBKDF2 rounds; on two
        // cores busy with the whole suite a user's PUT then ran past
        // CouchDB's own timeout (500). Its documented setting, lowered for
        // the users the tests make: the protocol is the same.
        for node in 0..<count {
            try await couch.must(.put, "_node/_local/_config/chttpd_auth/iterations", node: node, json: #""10000""#)
        }
        return couch
    }

    /// The nodes `couchdb.sh` started in `folder` (it notes each one's pid
    /// there as it starts it), killed, and the folder removed.
    private static func killNodes(in folder: URL) async {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let pids = names.filter { $0.hasPrefix("node") }.compactMap { name in
            (try? String(contentsOf: folder.appendingPathComponent("\(name)/pid"), encoding: .utf8))
                .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        for pid in pids { Glibc.kill(pid, SIGKILL) }
        for pid in pids { await waitUntilGone(pid) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `couchdb.sh` and returns what it printed, once it closed both
    /// pipes (its own end). Its exit is not awaited: Foundation learns of a
    /// child's end through a descriptor the child inherits, and the Erlang
    /// VMs the script leaves running hold it until they stop.
    private static func runScript(_ arguments: [String]) async throws -> (stdout: String, stderr: String) {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/bin/bash")
        script.arguments = arguments
        let out = Pipe(), err = Pipe()
        script.standardOutput = out
        script.standardError = err
        script.standardInput = FileHandle.nullDevice
        try await script.runWhenDescriptorsAllow()
        let printed = PipeDrain(out.fileHandleForReading, name: "couchdb.sh")
        let complaints = PipeDrain(err.fileHandleForReading, name: "couchdb.sh-err")
        return (String(decoding: await printed.data(), as: UTF8.self), String(decoding: await complaints.data(), as: UTF8.self))
    }

    /// A shell that waits for this test process to end, then kills the nodes
    /// started in `folder` (by the pids `couchdb.sh` notes there; SIGKILL:
    /// nothing of theirs is kept) and removes the folder.
    private static func watch(_ folder: URL) async throws {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
        watcher.arguments = ["-c", """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            for f in "$0"/node*/pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
            rm -rf "$0"
            """, folder.path]
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try await watcher.runWhenDescriptorsAllow()
    }

    /// Stops every node and waits until each is gone.
    func stop() async {
        for pid in pids { Glibc.kill(pid, SIGKILL) }
        for pid in pids { await Self.waitUntilGone(pid) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGKILLs one node (0-based) and waits until it is gone.
    func kill(node: Int) async {
        Glibc.kill(pids[node], SIGKILL)
        await Self.waitUntilGone(pids[node])
    }

    /// A bound only against hanging: a killed process is gone within moments.
    static func waitUntilGone(_ pid: Int32) async {
        for _ in 0..<3000 where Glibc.kill(pid, 0) == 0 {
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), stat.contains(") Z ") { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - HTTP

    struct Answer: Sendable {
        var status: Int
        var body: Data
        var headers: HTTPHeaders
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as JSON (Foundation's reader: the test's own view, not fprint's parser).
        var json: Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
    }

    /// One request as the admin; `path` after the node's root (`db/doc?x=y`).
    @discardableResult
    func request(_ method: HTTPMethod, _ path: String, node: Int = 0, json: String? = nil, body: Data? = nil,
                 contentType: String = "application/json", accept: String = "application/json") async throws -> Answer {
        try await Self.send(method, URL(string: nodes[node].absoluteString + "/" + path)!,
                            user: Self.admin, body: json.map { Data($0.utf8) } ?? body, contentType: contentType, accept: accept)
    }

    /// One request to any server (a gateway, say), with Basic credentials or a cookie.
    static func send(_ method: HTTPMethod, _ url: URL, user: (name: String, password: String)?, cookie: String? = nil,
                     body: Data? = nil, contentType: String = "application/json", accept: String = "application/json")
        async throws -> Answer
    {
        var headers: HTTPHeaders = ["Accept": accept]
        if let user { headers["Authorization"] = "Basic " + Data("\(user.name):\(user.password)".utf8).base64EncodedString() }
        if let cookie { headers["Cookie"] = cookie }
        if body != nil { headers["Content-Type"] = contentType }
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: body,
                                                            timeouts: HTTPTimeouts(connect: 10, total: 300)))
        return Answer(status: response.status, body: response.body, headers: response.headers)
    }

    /// A request that must succeed (2xx), else the test fails with CouchDB's answer.
    @discardableResult
    func must(_ method: HTTPMethod, _ path: String, node: Int = 0, json: String? = nil, accept: String = "application/json")
        async throws -> Answer
    {
        let answer = try await request(method, path, node: node, json: json, accept: accept)
        guard (200..<300).contains(answer.status) else {
            throw PeerError("CouchDB answered \(method) /\(path) with \(answer.status): \(answer.text)")
        }
        return answer
    }

    /// A new empty database with a name no other test uses.
    func newDatabase(_ prefix: String) async throws -> String {
        let name = "\(prefix)-\(UUID().uuidString.lowercased().prefix(8))"
        try await must(.put, name)
        return name
    }

    /// Every document of `db` (design documents included): id → `_rev`.
    func revisions(_ db: String, node: Int = 0) async throws -> [String: String] {
        let rows = try await must(.get, "\(db)/_all_docs", node: node).object["rows"] as? [[String: Any]] ?? []
        var out: [String: String] = [:]
        for row in rows {
            if let id = row["id"] as? String, let rev = (row["value"] as? [String: Any])?["rev"] as? String { out[id] = rev }
        }
        return out
    }

    /// A CouchDB user (`_users`) with a password and roles.
    func createUser(_ name: String, password: String, roles: [String] = []) async throws {
        let roleList = roles.map { "\"\($0)\"" }.joined(separator: ",")
        let path = "_users/org.couchdb.user:\(name)"
        let user = #"{"name":"\#(name)","password":"\#(password)","roles":[\#(roleList)],"type":"user"}"#
        // A 500 is CouchDB's timeout on a loaded machine; the user may have
        // been stored all the same, so look before trying again.
        for _ in 1...2 {
            let answer = try await request(.put, path, json: user)
            if (200..<300).contains(answer.status) { return }
            guard answer.status == 500 else { break }
            if try await request(.get, path).status == 200 { return }
        }
        try await must(.put, path, json: user)
    }

    /// Waits until `condition` holds (checked every 200 ms); false when
    /// `limit` passed first, a bound only against hanging.
    static func eventually(limit: Duration = .seconds(300), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return try await condition()
    }
}

/// The tests against one single-node CouchDB, in nested suites that share
/// it (`SyncTests`, `RefusalTests`, `ReplicatorTests`): one Erlang VM for
/// all of them, since starting one is the costly part on a busy machine.
/// Each test has databases (and users) of its own.
@Suite(.enabled(if: RealPeers.couchDBRuns, RealPeers.couchDBNote), .sharedCouchDB)
struct CouchDBPeers {}

/// One CouchDB for a whole suite (a start takes 3–10 s, far more on a busy
/// machine): started before its first test, stopped after its last, and
/// reached by its tests through `CouchDB.shared`.
struct SharedCouchDB: SuiteTrait, TestScoping {
    var nodes = 1

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void)
        async throws
    {
        let couch = try await CouchDB.start(nodes: nodes)
        do {
            try await CouchDB.$shared.withValue(couch) { try await function() }
        } catch {
            await couch.stop()
            throw error
        }
        await couch.stop()
    }
}

extension CouchDB {
    @TaskLocal static var shared: CouchDB?

    /// The suite's CouchDB (`SharedCouchDB`).
    static func current() throws -> CouchDB {
        guard let shared else { throw PeerError("no CouchDB: the suite needs the .sharedCouchDB trait") }
        return shared
    }
}

extension Trait where Self == SharedCouchDB {
    /// One CouchDB for the suite's tests.
    static var sharedCouchDB: SharedCouchDB { SharedCouchDB() }
}

/// One `couchdb.sh` start at a time in this test process, in the order asked.
actor PeerStarts {
    static let shared = PeerStarts()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func begin() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }  // handed the turn by `end`
    }

    func end() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
