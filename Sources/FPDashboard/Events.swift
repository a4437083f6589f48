import FPCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Counts open event streams: each holds a connection for minutes, so
/// their number is bounded in all and per client address.
actor StreamSlots {
    let total: Int
    let perClient: Int
    private var open: [String: Int] = [:]
    private var count = 0

    init(total: Int, perClient: Int) {
        self.total = total
        self.perClient = perClient
    }

    func take(_ client: String) -> Bool {
        guard count < total, open[client, default: 0] < perClient else { return false }
        count += 1
        open[client, default: 0] += 1
        return true
    }

    func release(_ client: String) {
        count -= 1
        open[client, default: 1] -= 1
        if open[client] == 0 { open[client] = nil }
    }

    var inUse: Int { count }
}

extension Dashboard {
    /// Server-sent events (`text/event-stream`): one `point` event per
    /// document of `map` that reaches the store after `since`, woken by the
    /// gateway's change notifier. Each carries its sequence as the event id,
    /// so a reconnecting browser resumes where it left off.
    func events(map: String, since: String?, client: String, head: Bool, closed: ConnectionClosed = .never) async -> Response {
        var headers = Responses.securityHeaders()
        headers[.contentType] = "text/event-stream"
        if head { return Response(status: .ok, headers: headers) }
        guard await streams.take(client) else {
            // A stream that ends at once with a later retry: browsers'
            // EventSource gives up for good on a 503, but reconnects after
            // this (by then a page left behind has freed its slot).
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: Self.busyRetry)))
        }
        let start: Int64
        if let since, let value = Int64(since), value >= 0 {
            start = value
        } else {
            start = (try? await index.lastSequence()) ?? 0
        }
        let (index, streams, wait, lifetime, heartbeat) = (self.index, self.streams, self.waitForChange, options.streamLifetime,
                                                           options.heartbeat)
        let positions = livePositions
        let desk = options.survey
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await Self.stream(map: map, from: start, index: index, wait: wait, positions: positions,
                                      lifetime: lifetime, heartbeat: heartbeat, closed: closed,
                                      stopped: { Self.stoppedEvent(job: desk?.current()) }) { text in
                    try await writer.write(ByteBuffer(string: text))
                }
                await streams.release(client)
                try await writer.finish(nil)
            } catch {
                // The browser went away (or the store failed): the slot is free again.
                await streams.release(client)
                throw error
            }
        })
    }

    /// What a live view over its client's limit gets: try again in 5 s.
    static let busyRetry = ": too many live views open from this address\nretry: 5000\n\n"

    /// The stream's text, written through `send` until `lifetime` passes or
    /// the server stops: `point` events for new documents of `map`, and
    /// `position` events for live positions on it (each publisher's latest
    /// first, then every new one). When the server stops, a last `stopped`
    /// event (`stopped()`'s text) tells the page, which otherwise could not
    /// tell a stop from the stream's routine reconnection.
    static func stream(map: String, from start: Int64, index: SurveyIndex, wait: @escaping ChangeWait, positions: LivePositions? = nil,
                       lifetime: Duration, heartbeat: Duration = .seconds(15), closed: ConnectionClosed = .never,
                       stopped: @Sendable () -> String = { stoppedEvent(job: nil) },
                       send: (String) async throws -> Void) async throws {
        let deadline = ContinuousClock.now + lifetime
        var since = start
        // A short retry: a stream that ends by its lifetime is picked up again at once.
        var opening = "retry: 1000\n\n"
        var positionsSeen: Int64 = 0
        if let positions {
            let (now, reached) = await positions.current(map: map)
            opening += now.map(positionEvent).joined()
            positionsSeen = reached
        }
        try await send(opening)
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let left = deadline - ContinuousClock.now
            switch await waitForEither(wait, since: since, positions: positions, seen: positionsSeen,
                                       timeout: min(left, heartbeat), closed: closed) {
            case .woken: break
            case .clientGone: return
            case .stopping:
                if !Task.isCancelled { try await send(stopped()) }
                return
            }
            let (points, reached) = try await index.changes(after: since)
            var text = ""
            for p in points where p.map == map {
                let data: JSONValue = ["id": .string(p.id), "x": .double(p.x), "y": .double(p.y),
                                       "owner": .string(p.owner), "session": p.session.map(JSONValue.string) ?? .null]
                text += "event: point\ndata: \(CanonicalJSON.string(data))\n\n"
            }
            if reached != since { text += "id: \(reached)\n\n" }
            if let positions {
                let (fresh, left, reachedPositions) = await positions.after(positionsSeen, map: map)
                text += fresh.map(positionEvent).joined()
                text += leftEvents(left)
                positionsSeen = reachedPositions
            }
            // A comment now and then keeps proxies and idle timers from closing a quiet stream.
            try await send(text.isEmpty ? ": still here\n\n" : text)
            since = reached
        }
    }

    /// `left` events: these publishers are no longer on the map (moved to another, or stopped).
    static func leftEvents(_ publishers: [String]) -> String {
        publishers.map { "event: left\ndata: \(CanonicalJSON.string(["publisher": .string($0)]))\n\n" }.joined()
    }

    /// A position, with how long ago the gateway received it (the page ages
    /// its marker from that, not from clocks it cannot trust).
    static func positionEvent(_ p: LivePosition) -> String {
        let age = max(0, Double((ContinuousClock.now - p.receivedAt).components.seconds))
        let data: JSONValue = ["publisher": .string(p.publisher), "x": .double(p.x), "y": .double(p.y),
                               "accuracy_m": p.accuracyM.map(JSONValue.double) ?? .null, "time": .string(p.time),
                               "age_s": .double(age)]
        return "event: position\ndata: \(CanonicalJSON.string(data))\n\n"
    }

    /// `event: stopped`, with the Survey page's job as the server stops
    /// (`null`: none yet): the page says what became of it.
    static func stoppedEvent(job: SurveyJob?) -> String {
        let encoded = job.flatMap { try? JSONEncoder().encode($0) }.flatMap { String(data: $0, encoding: .utf8) } ?? "null"
        return "event: stopped\ndata: {\"job\":\(encoded)}\n\n"
    }

    /// Why a live view's wait ended.
    enum Wake { case woken, stopping, clientGone }

    /// Waits for a stored change or a live position (or the timeout),
    /// whichever comes first; or for the server to stop or the client's
    /// connection to close.
    static func waitForEither(_ wait: @escaping ChangeWait, since: Int64, positions: LivePositions?, seen: Int64,
                              timeout: Duration, closed: ConnectionClosed = .never) async -> Wake {
        await withTaskGroup(of: Wake.self) { group in
            group.addTask { await wait(since, timeout) ? .woken : .stopping }
            if let positions {
                group.addTask {
                    await positions.wait(after: seen, timeout: timeout)
                    return .woken
                }
            }
            group.addTask {
                await closed.wait()
                return .clientGone
            }
            let first = await group.next() ?? .woken
            group.cancelAll()
            return first
        }
    }
}

/// Returns once a request's connection has closed (the client went away),
/// or the waiting task is cancelled.
package struct ConnectionClosed: Sendable {
    let wait: @Sendable () async -> Void

    package init(_ wait: @escaping @Sendable () async -> Void) { self.wait = wait }

    /// The client of a NIO channel going away (`ClientGoneWatcher`, in its pipeline).
    package init(_ channel: any Channel) {
        wait = {
            let once = ResumeOnce()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    once.set(continuation)
                    ClientGoneWatcher.gone(channel).whenComplete { _ in once.resume() }
                }
            } onCancel: { once.resume() }
        }
    }

    /// A connection this code does not see (tests): it never closes.
    package static let never = ConnectionClosed {
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
    }
}

/// A continuation resumed once, by whichever comes first; one that comes
/// before the continuation is set resumes it as soon as it is.
final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var resumed = false

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let now = lock.withLock { () -> Bool in
            if resumed { return true }
            self.continuation = continuation
            return false
        }
        if now { continuation.resume() }
    }

    func resume() {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            guard !resumed else { return nil }
            resumed = true
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }
}

/// Notes when a client has gone: its half of the connection closed (a live
/// view's page was left, the tab closed). Hummingbird keeps half-closed
/// connections open for writing, so the channel's close alone does not
/// tell; this sits in the pipeline after HTTP decoding and sees the end of input.
package final class ClientGoneWatcher: ChannelInboundHandler, RemovableChannelHandler {
    // Whatever the decoder passes on goes through untouched.
    package typealias InboundIn = Any
    package typealias InboundOut = Any
    private var promise: EventLoopPromise<Void>?

    package init() {}

    package func handlerAdded(context: ChannelHandlerContext) {
        promise = context.eventLoop.makePromise()
    }

    package func handlerRemoved(context: ChannelHandlerContext) { promise?.succeed() }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { promise?.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed()
        context.fireChannelInactive()
    }

    /// When the client of `channel` is gone (at once if the channel has no watcher).
    static func gone(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: ClientGoneWatcher.self).flatMap { watcher in
            watcher.promise?.futureResult ?? channel.eventLoop.makeSucceededVoidFuture()
        }.flatMapError { _ in channel.closeFuture }
    }
}
