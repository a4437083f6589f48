import FPCore
import FPNet
import FPStore
import FPSync
import Foundation
import Glibc
import Synchronization
import Testing

/// Sync never holds a thread of Swift's cooperative pool (as many threads as
/// cores) while it waits: transfers run on each transport's own thread, store
/// work on dispatch threads.
@Suite(.serialized) struct CooperativePoolTests {
    /// More syncs than cores wait on a server that never answers; a plain
    /// task still runs, and cancelling the syncs ends them as `cancelled`
    /// (not as the timeout, 10 minutes away). The bounds are half that
    /// timeout: a blocking transport would hold the pool's threads for all
    /// of it, and other suites of this process on busy cores need room.
    @Test func syncsWaitingOnASilentServerLeaveThePoolFree() async throws {
        let silent = try SilentListener()
        defer { silent.stop() }
        let count = ProcessInfo.processInfo.activeProcessorCount * 4
        var syncs: [Task<SyncReport, any Error>] = []
        for index in 0..<count {
            let store = try SQLiteDocumentStore.inMemory()
            try store.insert([NewDocument(id: "d\(index)", body: body(owner: "alice"))])
            let remote = RemoteDatabase(url: URL(string: "http://127.0.0.1:\(silent.port)/fprint")!,
                                        transport: CurlHTTPTransport(), credentials: .bearer("t"), retry: .none,
                                        timeouts: HTTPTimeouts(connect: 600, total: 600))
            let replicator = Replicator(store: store, remote: remote, userID: "alice")
            let pushing = index.isMultiple(of: 2)
            syncs.append(Task {
                if pushing { return try await replicator.push() }
                return try await replicator.pull()
            })
        }
        // Every sync gets as far as its first request. With a blocking
        // transport only as many as the pool has threads would, the rest
        // waiting for their 10 minute timeouts.
        let deadline = Date().addingTimeInterval(300)
        while silent.accepted < count, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(silent.accepted == count, "only \(silent.accepted) of \(count) syncs reached the server")

        // Nor is a plain task kept waiting for a thread.
        let started = Date()
        let sum = await Task.detached { (1...1000).reduce(0, +) }.value
        let waited = Date().timeIntervalSince(started)
        #expect(sum == 500_500)
        // A bound is the point here: with a blocking transport the task would
        // wait for the 10 minute timeouts (5.4 s seen beside the whole suite).
        #expect(waited < 300, "a plain task waited \(waited) s for a thread")

        for sync in syncs { sync.cancel() }
        for sync in syncs {
            switch await sync.result {
            case .success: Issue.record("a sync against a silent server completed")
            case .failure(let error): #expect(error as? SyncError == .cancelled, "\(error)")
            }
        }
        // `.cancelled` says the cancellation ended them: a sync that ran on to
        // the 60 s transfer limit would end as unreachable instead.
    }

    /// The push uploads one batch while it prepares the next: `_revs_diff`
    /// of a later batch is asked while an upload is in flight, never two
    /// uploads at once, and checkpoints are written in batch order.
    @Test func thePushPreparesTheNextBatchWhileOneUploadIsInFlight() async throws {
        // Each upload but the last is held until the next batch's diff
        // arrives (at most 20 s): the overlap is seen however busy the machine
        // (a fixed 150 ms missed it beside the whole suite), and a push that
        // waited for each upload before its next diff would fail here, slowly.
        let peer = SlowPeer(uploadDelay: .seconds(20), holdingUploadsForTheNextDiff: 5)
        let store = try SQLiteDocumentStore.inMemory()
        try store.insert((0..<50).map { NewDocument(id: "d\($0)", body: body(owner: "alice")) })
        let remote = RemoteDatabase(url: URL(string: "http://couch.test/db")!, transport: peer, credentials: .none,
                                    retry: .none)
        let report = try await Replicator(store: store, remote: remote, limits: BatchLimits(count: 10), userID: "alice").push()
        #expect(report.written == 50 && report.examined == 50)
        let log = peer.log
        #expect(log.maxUploadsInFlight == 1)
        #expect(log.uploads == 5)
        // Batches 2…5 were diffed while the previous batch was being uploaded.
        #expect(log.diffsDuringUpload == 4, "only \(log.diffsDuringUpload) of 4 later batches overlapped an upload")
        #expect(log.checkpointSeqs == [10, 20, 30, 40, 50])
        #expect(try store.list(ListQuery(unsyncedOnly: true)).isEmpty)
    }

    /// Requests that find the session cookie about to expire share one login.
    @Test func concurrentRequestsShareOneLogin() async throws {
        let peer = SlowPeer(uploadDelay: .zero, loginDelay: .milliseconds(200))
        let clock = TestClock()
        let session = CouchSession(sessionURL: URL(string: "http://couch.test/_session")!, name: "admin", password: "pw",
                                   cookie: .init(value: "OLD", expiresAt: clock.now + 30, lifetime: 600),
                                   transport: peer, now: { clock.now })
        let remote = RemoteDatabase(url: URL(string: "http://couch.test/db")!, transport: peer,
                                    credentials: .session(session), retry: .none)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 { group.addTask { _ = try await remote.json(.get, []) } }
            try await group.waitForAll()
        }
        #expect(peer.log.logins == 1)
        #expect(peer.log.cookies == Array(repeating: "AuthSession=NEW", count: 6))
    }
}

/// A loopback port that accepts connections, counts them and never answers.
final class SilentListener: @unchecked Sendable {
    // @unchecked: `held` and `stopped` are touched only with `lock` held.
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var held: [Int32] = []
    private var stopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 64) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        // A blocking accept loop: a thread of its own, not the pool's.
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 && errno == EINTR { continue }  // a signal (a test's child exiting)
                guard connection >= 0 else { return }  // shut down
                lock.withLock { held.append(connection) }
            }
        }
    }

    /// Connections accepted so far.
    var accepted: Int { lock.withLock { held.count } }

    func stop() {
        let connections = lock.withLock {
            defer { stopped = true }
            return stopped ? [] : held
        }
        shutdown(fd, Int32(SHUT_RDWR))  // wakes the accept loop
        for connection in connections { close(connection) }
    }

    deinit { close(fd) }
}

/// A CouchDB stand-in whose uploads and logins take time (suspending, as a
/// network does), recording what overlapped.
final class SlowPeer: HTTPTransport {
    struct Log {
        var uploadsInFlight = 0
        var maxUploadsInFlight = 0
        var uploads = 0
        /// `_revs_diff`s of batch n+1 that came before batch n's upload ended
        /// (a push that waited for each upload would send none).
        var diffsDuringUpload = 0
        var diffs = 0
        var checkpointSeqs: [Int64] = []
        var logins = 0
        var cookies: [String] = []
    }

    private let state = Mutex(Log())
    let uploadDelay: Duration
    let loginDelay: Duration
    /// Set: of this many uploads, upload n (but the last) returns as soon as
    /// the next batch's `_revs_diff` has come (`uploadDelay` is then the longest wait).
    let heldUploads: Int?

    init(uploadDelay: Duration, loginDelay: Duration = .zero, holdingUploadsForTheNextDiff heldUploads: Int? = nil) {
        self.uploadDelay = uploadDelay
        self.loginDelay = loginDelay
        self.heldUploads = heldUploads
    }

    var log: Log { state.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let path = request.url.path
        switch (request.method, path) {
        case (.post, "/_session"):
            try? await Task.sleep(for: loginDelay)
            state.withLock { $0.logins += 1 }
            return HTTPResponse(status: 200, headers: ["Set-Cookie": "AuthSession=NEW; Max-Age=600"],
                                body: Data(#"{"ok":true,"name":"admin"}"#.utf8))
        case (.get, "/db"):
            state.withLock { $0.cookies.append(request.headers["Cookie"] ?? "") }
            return jsonResponse(200, ["db_name": "db", "update_seq": 0])
        case (.post, "/db/_revs_diff"):
            state.withLock {
                $0.diffs += 1
                if $0.diffs >= 2, $0.uploads < $0.diffs - 1 { $0.diffsDuringUpload += 1 }
            }
            let asked = (try? CanonicalJSON.parse(request.body ?? Data()))?.objectValue ?? [:]
            return jsonResponse(200, .object(asked.mapValues { ["missing": $0] }))
        case (.post, "/db/_bulk_docs"):
            let number = state.withLock {
                $0.uploadsInFlight += 1
                $0.maxUploadsInFlight = max($0.maxUploadsInFlight, $0.uploadsInFlight)
                return $0.uploads + 1
            }
            if let heldUploads {
                // Upload n ends once batch n+1's diff has come (it may come
                // before this upload starts: the child task runs when it can).
                let deadline = ContinuousClock.now + uploadDelay
                while number < heldUploads, ContinuousClock.now < deadline, state.withLock({ $0.diffs }) < number + 1 {
                    try? await Task.sleep(for: .milliseconds(5))
                }
            } else {
                try? await Task.sleep(for: uploadDelay)
            }
            state.withLock {
                $0.uploadsInFlight -= 1
                $0.uploads += 1
            }
            return jsonResponse(201, [])
        case (.get, _) where path.hasPrefix("/db/_local/"):
            return jsonResponse(404, ["error": "not_found", "reason": "missing"])
        case (.put, _) where path.hasPrefix("/db/_local/"):
            let seq = (try? CanonicalJSON.parse(request.body ?? Data()))?["source_last_seq"]?.intValue
            state.withLock { $0.checkpointSeqs.append(seq ?? -1) }
            return jsonResponse(201, ["ok": true, "rev": "0-1"])
        default:
            return jsonResponse(404, ["error": "not_found", "reason": .string("no route \(path)")])
        }
    }
}
