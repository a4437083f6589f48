import ArgumentParser
import FPCore
import FPDashboard
import FPNet
import FPSession
import FPSync
import Foundation
import Synchronization

/// `--publish` of `track` and `walk`: where the positions go and under which name.
struct PublishOptions: ParsableArguments {
    @Flag(help: "Send each position to the gateway's live view (the gateway and credentials sync uses).") var publish = false
    @Option(help: "With --publish: a name for this device, shown after your user name (letters, digits, . _ -).")
    var device: String?
    @OptionGroup var client: GatewayClientOptions

    func validate() throws {
        if let device {
            if !publish { throw ValidationError("--device names the publisher: add --publish") }
            if !LivePosition.isDeviceName(device) {
                throw ValidationError("--device must be 1–64 letters, digits, '.', '_' or '-', got '\(device)'")
            }
        }
        if client.gateway != nil && !publish { throw ValidationError("--gateway is where positions are published: add --publish") }
    }

    /// The gateway and credentials sync would use, with `/_positions` beside the database; nil without --publish.
    func publisher(_ ws: Workspace) throws -> PositionPublisher? {
        guard publish else { return nil }
        let given = try client.gatewayURL(ws)
        let transport = client.transport()
        let auth = try GatewayAuth.resolve(given, explicitToken: nil, workspace: ws, transport: transport)
        let remote = RemoteDatabase(url: GatewayAuth.rootURL(of: auth.url, path: "/_positions"), transport: transport,
                                    credentials: auth.credentials, retry: RetryPolicy(attempts: 2),
                                    timeouts: HTTPTimeouts(connect: 5, total: 15))
        let who = auth.origin == "none" ? "without credentials" : "with credentials from \(auth.origin)"
        Terminal.err("publishing positions to \(remote.displayURL) \(who)")
        return PositionPublisher(remote: remote, device: device)
    }
}

/// Sends positions to the gateway's `/_positions`, for the dashboard's live
/// view. `add` only queues (it is called from progress callbacks); one
/// request is in flight at a time and what was queued meanwhile goes in the
/// next (a `--fast` run makes hundreds a second); a failure is said once and
/// never stops the command. Positions are not measurements: the gateway
/// keeps them in memory for the live view only.
final class PositionPublisher: Sendable {
    static let batchLimit = 100
    /// Positions waiting while the gateway does not answer; older ones are dropped past this.
    static let queueLimit = 2_000

    private struct State {
        var queue: [JSONValue] = []
        var sender: Task<Void, Never>?
        var sent = 0
        var failed = 0
        var firstError: SyncError?
    }

    let remote: RemoteDatabase
    let device: String?
    private let state = Mutex(State())

    init(remote: RemoteDatabase, device: String?) {
        self.remote = remote
        self.device = device
    }

    func add(map: String, x: Double, y: Double, accuracyM: Double?, time: Date) {
        let position: JSONValue = ["map": .string(map), "x": .double(x), "y": .double(y),
                                   "accuracy_m": accuracyM.map(JSONValue.double) ?? .null,
                                   "time": .string(ISOTime.string(time))]
        state.withLock { s in
            s.queue.append(position)
            if s.queue.count > Self.queueLimit {
                s.failed += s.queue.count - Self.queueLimit
                s.queue.removeFirst(s.queue.count - Self.queueLimit)
            }
            if s.sender == nil { s.sender = Task { await self.drain() } }
        }
    }

    /// Waits for what is queued to be sent (or to fail) and says how many
    /// reached the gateway. When none did and `failWhenNoneSent`, fails with
    /// the gateway's error, exiting as sync would (`track`, whose output the
    /// positions are; a walk's output is its stored documents).
    func finish(failWhenNoneSent: Bool = true) async throws {
        while let sender = state.withLock({ $0.sender }) { await sender.value }
        let (sent, failed, error) = state.withLock { ($0.sent, $0.failed, $0.firstError) }
        // The live view takes the publisher off its map now, not when its marker ages out.
        if sent > 0 {
            var stopped: JSONObject = ["stopped": true]
            if let device { stopped["device"] = .string(device) }
            _ = try? await remote.json(.post, [], body: .object(stopped))
        }
        Terminal.err("published \(Terminal.counted(sent, "position"))\(failed > 0 ? ", \(failed) not" : "") to \(remote.displayURL)")
        if failWhenNoneSent, sent == 0, failed > 0, let error { throw CommandFailure(error) }
    }

    /// Sends batches until the queue is empty; the sender slot is freed in
    /// the same locked step that finds it empty, so no position is left behind.
    private func drain() async {
        while let batch = state.withLock({ s -> [JSONValue]? in
            guard !s.queue.isEmpty else {
                s.sender = nil
                return nil
            }
            let batch = Array(s.queue.prefix(Self.batchLimit))
            s.queue.removeFirst(batch.count)
            return batch
        }) {
            var body: JSONObject = ["positions": .array(batch)]
            if let device { body["device"] = .string(device) }
            do throws(SyncError) {
                _ = try await remote.json(.post, [], body: .object(body))
                state.withLock { $0.sent += batch.count }
            } catch {
                let first = state.withLock { s in
                    s.failed += batch.count
                    defer { if s.firstError == nil { s.firstError = error } }
                    return s.firstError == nil
                }
                if first { Terminal.err("warning: positions are not published: \(error.description) (the command goes on)") }
            }
        }
    }
}

/// `walk --publish`: the walk's target position (where the surveyor should
/// be now), once a second of walk time, from the capture's progress.
final class WalkPublishing: @unchecked Sendable {
    // @unchecked: `nextMs` is touched only by the capture's progress callback, one call at a time.
    private var nextMs = 0
    let publisher: PositionPublisher
    let map: String
    let clock: any MeasurementClock

    init(publisher: PositionPublisher, map: String, clock: any MeasurementClock) {
        self.publisher = publisher
        self.map = map
        self.clock = clock
    }

    func update(_ progress: CaptureProgress) {
        guard progress.elapsedMs >= nextMs, let target = progress.target else { return }
        nextMs = progress.elapsedMs - progress.elapsedMs % 1000 + 1000
        publisher.add(map: map, x: target.x, y: target.y, accuracyM: nil, time: clock.wallTime(atMs: progress.elapsedMs))
    }
}
