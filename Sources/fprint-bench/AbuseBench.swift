import FPTestSupport
import Foundation

// `make bench-abuse` (fprint-bench --abuse): `fprint gateway` as an attacker
// meets it, with the figures the gateway-security goals are stated in:
//
// 1. Header flood: 12,000 connections each sending 60 KB of an unfinished
//    head, no credentials: the gateway's peak RSS (goal < 300 MB), its RSS
//    once they are closed, and whether a real user is served meanwhile.
// 2. Authenticated flood: three clients at once asking the most a request
//    may (10,000 ids to `_all_docs`, `_bulk_get` and `_revs_diff`, 31 MB
//    `_bulk_docs`): peak RSS (goal < 300 MB).
// 3. Guessing: one address guessing a password for 15 s: checks per second
//    (goal ≤ 2), and the real user's logins from another address meanwhile
//    (goal: every one succeeds).
// 4. Duplicate flood (AbuseDuplicateFlood.swift): one 1 MB revision named
//    200 times in each `open_revs` and `_bulk_get`, several clients at
//    once: peak RSS (goal < 300 MB).
// 5. Login flood (LoginFloodBench.swift): one user's correct password
//    10,000 times: peak RSS (goal < 300 MB), another user's login and a GET
//    before and after (goal: within 2×).

func runAbuseBench(fprint: String, dir: String) throws {
    let gateway = try AbuseGateway(fprint: fprint, dir: dir)
    defer { gateway.stop() }
    print("abuse bench: fprint gateway on port \(gateway.port), load average \(loadAverage())")
    headerFlood(gateway)
    authenticatedFlood(gateway)
    guessing(gateway)
    duplicateFlood(gateway)
    loginFlood(gateway, ledger: dir + "/secret.credentials.json")
}

/// A release `fprint gateway` with a users file and a token for alice.
final class AbuseGateway: @unchecked Sendable {
    private let server: BenchGateway
    var port: Int { server.port }
    var token: String { server.token }
    var pid: Int32 { server.process.processIdentifier }

    init(fprint: String, dir: String) throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let env = benchEnvironment(dir)
        let secret = dir + "/secret", users = dir + "/users"
        FileManager.default.createFile(atPath: users, contents: Data("alice:correct-horse\nbob:battery-staple\n".utf8),
                                       attributes: [.posixPermissions: 0o600])
        server = try BenchGateway(fprint: fprint, db: dir + "/gateway.sqlite", secret: secret, environment: env, user: "alice",
                                  users: users)
        raiseOpenFiles()
    }

    func stop() { server.stop() }

    /// One request on a connection of its own; the status.
    func status(_ head: String, body: [UInt8] = [], from source: String? = nil, timeout: Double = 120) -> Int? {
        guard let c = try? RawConnection(port: port, from: source) else { return nil }
        defer { c.close() }
        c.send(head + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        body.withUnsafeBytes { _ = c.send($0) }
        return RawConnection.status(c.readAllBlocking(timeout: timeout, stopAfterHeaders: true))
    }

    func login(name: String = "alice", _ password: String, from source: String) -> Int? {
        let body = Array(#"{"name":"\#(name)","password":"\#(password)"}"#.utf8)
        return status("POST /_session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n", body: body, from: source)
    }

    /// `GET /fprint` with alice's token.
    var authorizedGet: String { "GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n" }

    var rssMB: Double { procField("VmRSS:") / 1024 }
    var peakMB: Double { procField("VmHWM:") / 1024 }

    /// Resets the peak (VmHWM) so each part reports its own.
    func resetPeak() { try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8) }

    private func procField(_ name: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Double(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) ?? 0
        }
        return 0
    }
}

func headerFlood(_ gateway: AbuseGateway, connections: Int = 12_000, headBytes: Int = 60 << 10) {
    gateway.resetPeak()
    let before = gateway.rssMB
    let pad = "GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + String(repeating: "a", count: headBytes)
    var held: [RawConnection] = []
    let started = Date()
    for _ in 0..<connections {
        guard let c = try? RawConnection(port: gateway.port) else { continue }
        var nonBlocking = fcntl(c.fd, F_GETFL)
        nonBlocking |= O_NONBLOCK
        _ = fcntl(c.fd, F_SETFL, nonBlocking)
        _ = pad.withCString { send(c.fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        held.append(c)
    }
    let opened = Date().timeIntervalSince(started)
    let user = gateway.status("GET /fprint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(gateway.token)\r\n")
    let peak = gateway.peakMB
    for c in held { c.close() }
    sleep(3)
    print(String(format: "header flood: %d connections × %d KB unfinished heads in %.1f s: gateway peak %.0f MB (goal < 300), "
                 + "%.0f MB before, %.0f MB after they closed; a real user meanwhile: %@", held.count, headBytes >> 10, opened, peak,
                 before, gateway.rssMB, user.map { "HTTP \($0)" } ?? "no answer"))
}

func authenticatedFlood(_ gateway: AbuseGateway, seconds: Double = 20) {
    gateway.resetPeak()
    let ids = (0..<10_000).map { "id-\($0)-" + String(repeating: "x", count: 24) }
    let keys = Array(("{\"keys\":[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]}").utf8)
    let docs = Array(("{\"docs\":[" + ids.map { "{\"id\":\"\($0)\"}" }.joined(separator: ",") + "]}").utf8)
    let diff = Array(("{" + ids.map { "\"\($0)\":[\"1-abc\",\"2-def\"]" }.joined(separator: ",") + "}").utf8)
    var bulk = Array(#"{"docs":["#.utf8)
    var n = 0
    while bulk.count < 31 << 20 {
        if n > 0 { bulk.append(UInt8(ascii: ",")) }
        bulk += Array(#"{"_id":"flood-\#(n)","couchbase_sync_gateway_id":"alice","pad":""#.utf8)
        bulk += [UInt8](repeating: UInt8(ascii: "p"), count: 20_000)
        bulk += Array(#""}"#.utf8)
        n += 1
    }
    bulk += Array("]}".utf8)
    let head = { (path: String) in
        "POST /fprint/\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(gateway.token)\r\nContent-Type: application/json\r\n"
    }
    let requests: [(String, [UInt8])] = [(head("_all_docs"), keys), (head("_bulk_get"), docs), (head("_revs_diff"), diff),
                                         (head("_bulk_docs"), bulk)]
    let deadline = Date().addingTimeInterval(seconds)
    let group = DispatchGroup()
    let statuses = StatusTally()
    for client in 0..<3 {
        group.enter()
        Thread.detachNewThread {
            var i = client
            while Date() < deadline {
                let (h, b) = requests[i % requests.count]
                statuses.add(gateway.status(h, body: b))
                i += 1
            }
            group.leave()
        }
    }
    group.wait()
    print(String(format: "authenticated flood: 3 clients for %.0f s (10,000-id _all_docs/_bulk_get/_revs_diff, 31 MB _bulk_docs): "
                 + "gateway peak %.0f MB (goal < 300), %.0f MB after; answers %@", seconds, gateway.peakMB, gateway.rssMB,
                 statuses.summary))
}

func guessing(_ gateway: AbuseGateway, seconds: Double = 15) {
    let stop = Date().addingTimeInterval(seconds)
    let statuses = StatusTally()
    let group = DispatchGroup()
    for _ in 0..<16 {
        group.enter()
        Thread.detachNewThread {
            while Date() < stop { statuses.add(gateway.login("wrong", from: "127.0.0.2")) }
            group.leave()
        }
    }
    var victim: [Int?] = []
    var slowest = 0.0
    while Date() < stop {
        let t = Date()
        victim.append(gateway.login("correct-horse", from: "127.0.0.1"))
        slowest = max(slowest, Date().timeIntervalSince(t))
        usleep(500_000)
    }
    group.wait()
    let checked = statuses.count(401)
    print(String(format: "guessing: 16 loops from one address for %.0f s: %.2f passwords checked a second (goal ≤ 2), %d refused (429); "
                 + "the real user from another address: %d of %d logins succeeded (goal: all), slowest %.2f s", seconds,
                 Double(checked) / seconds, statuses.count(429), victim.filter { $0 == 200 }.count, victim.count, slowest))
}

/// Statuses several threads add to.
final class StatusTally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    func add(_ status: Int?) { lock.withLock { counts[status ?? 0, default: 0] += 1 } }
    func count(_ status: Int) -> Int { lock.withLock { counts[status] ?? 0 } }
    var summary: String {
        lock.withLock { counts.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "none" : String($0.key)) ×\($0.value)" }.joined(separator: ", ") }
    }
}

func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

func raiseOpenFiles() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
