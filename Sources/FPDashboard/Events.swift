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
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                try await Self.stream(map: map, from: start, index: index, wait: wait, lifetime: lifetime) { text in
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

    /// The stream's text, written through `send` until `lifetime` passes or the server stops.
    static func stream(map: String, from start: Int64, index: SurveyIndex, wait: ChangeWait, lifetime: Duration,
                       send: (String) async throws -> Void) async throws {
        let deadline = ContinuousClock.now + lifetime
        var since = start
        // A short retry: a stream that ends by its lifetime is picked up again at once.
        try await send("retry: 1000\n\n")
        while ContinuousClock.now < deadline, !Task.isCancelled {
            let left = deadline - ContinuousClock.now
            guard await wait(since, min(left, .seconds(15))) else { return }
            let (points, reached) = try await index.changes(after: since)
            var text = ""
            for p in points where p.map == map {
                let data: JSONValue = ["id": .string(p.id), "x": .double(p.x), "y": .double(p.y),
                                       "owner": .string(p.owner), "session": p.session.map(JSONValue.string) ?? .null]
                text += "event: point\ndata: \(CanonicalJSON.string(data))\n\n"
            }
            if reached != since { text += "id: \(reached)\n\n" }
            // A comment now and then keeps proxies and idle timers from closing a quiet stream.
            try await send(text.isEmpty ? ": still here\n\n" : text)
            since = reached
        }
    }
}
