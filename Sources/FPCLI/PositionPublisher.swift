import FPAnalysis
import FPCore
import FPNet
import FPSync
import Foundation

/// `fprint track --publish`: each position goes to the gateway's
/// `/_positions`, for the dashboard's live view. One request is in flight at
/// a time and what was made meanwhile goes in the next (a `--fast` replay
/// makes hundreds a second); a failure is said once and never stops the
/// tracking. Positions are not measurements: the gateway keeps them in
/// memory for the live view only.
actor PositionPublisher {
    static let batchLimit = 100
    /// Positions waiting while the gateway does not answer; older ones are dropped past this.
    static let queueLimit = 2_000

    let remote: RemoteDatabase
    let device: String?
    private var queue: [JSONValue] = []
    private var sender: Task<Void, Never>?
    private(set) var sent = 0
    private(set) var failed = 0
    private(set) var firstError: SyncError?

    init(remote: RemoteDatabase, device: String?) {
        self.remote = remote
        self.device = device
    }

    /// The gateway's `/_positions` beside the database URL.
    static func url(of database: URL) -> URL { GatewayAuth.rootURL(of: database, path: "/_positions") }

    func add(_ point: TrackPoint, time: Date) {
        queue.append(["map": .string(point.map), "x": .double(point.x), "y": .double(point.y),
                      "accuracy_m": .double(point.accuracyM), "time": .string(ISOTime.string(time))])
        if queue.count > Self.queueLimit {
            failed += queue.count - Self.queueLimit
            queue.removeFirst(queue.count - Self.queueLimit)
        }
        if sender == nil { sender = Task { await drain() } }
    }

    /// Waits for what is queued to be sent (or to fail).
    func finish() async -> (sent: Int, failed: Int, error: SyncError?) {
        await sender?.value
        return (sent, failed, firstError)
    }

    private func drain() async {
        while !queue.isEmpty {
            let batch = Array(queue.prefix(Self.batchLimit))
            queue.removeFirst(batch.count)
            var body: JSONObject = ["positions": .array(batch)]
            if let device { body["device"] = .string(device) }
            do throws(SyncError) {
                _ = try await remote.json(.post, [], body: .object(body))
                sent += batch.count
            } catch {
                failed += batch.count
                if firstError == nil {
                    firstError = error
                    Terminal.err("warning: positions are not published: \(error.description) (tracking goes on)")
                }
            }
        }
        sender = nil
    }
}

extension Track {
    /// The gateway and credentials sync would use, with `/_positions` beside the database.
    func makePublisher(_ ws: Workspace) throws -> PositionPublisher {
        let given = try client.gatewayURL(ws)
        let transport = client.transport()
        let auth = try GatewayAuth.resolve(given, explicitToken: nil, workspace: ws, transport: transport)
        let remote = RemoteDatabase(url: PositionPublisher.url(of: auth.url), transport: transport,
                                    credentials: auth.credentials, retry: RetryPolicy(attempts: 2),
                                    timeouts: HTTPTimeouts(connect: 5, total: 15))
        let who = auth.origin == "none" ? "without credentials" : "with credentials from \(auth.origin)"
        Terminal.err("publishing positions to \(remote.displayURL) \(who)")
        return PositionPublisher(remote: remote, device: device)
    }

    /// Says how many positions reached the gateway; when none did, fails
    /// with the gateway's error, exiting as sync would.
    static func reportPublished(_ publisher: PositionPublisher) async throws {
        let (sent, failed, error) = await publisher.finish()
        Terminal.err("published \(Terminal.counted(sent, "position"))\(failed > 0 ? ", \(failed) not" : "") to \(publisher.remote.displayURL)")
        if sent == 0, failed > 0, let error { throw CommandFailure(error) }
    }
}
