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
    func events(map: String, since: String?, client: String, head: Bool) async -> Response {
        var headers = Responses.securityHeaders()
        headers[.contentType] = "text/event-stream"
        if head { return Response(status: .ok, headers: headers) }
        guard await streams.take(client) else {
            var busy = Responses.html(.serviceUnavailable, "too many live views open\n")
            busy.headers[.retryAfter] = "10"
            return busy
        }
        let start: Int64
        if let since, let value = Int64(since), value >= 0 {
            start = value
        } else {
            start = (try? await index.lastSequence()) ?? 0
        }
        let (index, streams, wait, lifetime) = (self.index, self.streams, self.waitForChange, options.streamLifetime)
        let positions = livePositions
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await Self.stream(map: map, from: start, index: index, wait: wait, positions: positions,
                                      lifetime: lifetime) { text in
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

    /// The stream's text, written through `send` until `lifetime` passes or
    /// the server stops: `point` events for new documents of `map`, and
    /// `position` events for live positions on it (each publisher's latest
    /// first, then every new one).
    static func stream(map: String, from start: Int64, index: SurveyIndex, wait: @escaping ChangeWait, positions: LivePositions? = nil,
                       lifetime: Duration, send: (String) async throws -> Void) async throws {
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
            guard await waitForEither(wait, since: since, positions: positions, seen: positionsSeen,
                                      timeout: min(left, .seconds(15)))
            else { return }
            let (points, reached) = try await index.changes(after: since)
            var text = ""
            for p in points where p.map == map {
                let data: JSONValue = ["id": .string(p.id), "x": .double(p.x), "y": .double(p.y),
                                       "owner": .string(p.owner), "session": p.session.map(JSONValue.string) ?? .null]
                text += "event: point\ndata: \(CanonicalJSON.string(data))\n\n"
            }
            if reached != since { text += "id: \(reached)\n\n" }
            if let positions {
                let (fresh, reachedPositions) = await positions.after(positionsSeen, map: map)
                text += fresh.map(positionEvent).joined()
                positionsSeen = reachedPositions
            }
            // A comment now and then keeps proxies and idle timers from closing a quiet stream.
            try await send(text.isEmpty ? ": still here\n\n" : text)
            since = reached
        }
    }

    static func positionEvent(_ p: LivePosition) -> String {
        let data: JSONValue = ["publisher": .string(p.publisher), "x": .double(p.x), "y": .double(p.y),
                               "accuracy_m": p.accuracyM.map(JSONValue.double) ?? .null, "time": .string(p.time)]
        return "event: position\ndata: \(CanonicalJSON.string(data))\n\n"
    }

    /// Waits for a stored change or a live position, whichever comes first;
    /// false once the server is stopping.
    static func waitForEither(_ wait: @escaping ChangeWait, since: Int64, positions: LivePositions?, seen: Int64,
                              timeout: Duration) async -> Bool {
        guard let positions else { return await wait(since, timeout) }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask { await wait(since, timeout) }
            group.addTask {
                await positions.wait(after: seen, timeout: timeout)
                return true
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
    }
}
