import FPAnalysis
import FPConfig
import FPCore
import FPNet
import Foundation

/// Webhook events (an alert raised, an alert cleared) queued in a file beside
/// the database and posted by whichever command evaluates next: storing never
/// waits for the receiver. Each event is posted until a 2xx answer and then
/// never again; a failed post waits 30 s, 1 min, 2 min … (at most 1 h) before
/// the next command tries it again.
///
/// The file (`<database>-alerts.json`) remembers which alerts were already
/// announced. The first evaluation announces only the active ones (a store's
/// old history is not news), and without a webhook the alerts are remembered
/// but nothing is queued.
struct AlertOutbox: Sendable {
    let path: String
    var announced: [String: String] = [:]
    var queue: [Pending] = []
    var existed = false

    struct Pending: Sendable {
        var id: String
        var body: JSONValue
        var attempts: Int
        var nextAttempt: Int64
    }

    static func path(_ ws: Workspace) -> String { ws.databasePath + "-alerts.json" }

    static func load(_ path: String) -> AlertOutbox {
        var box = AlertOutbox(path: path)
        guard let data = FileManager.default.contents(atPath: path), let json = try? CanonicalJSON.parse(data) else { return box }
        box.existed = true
        for (key, value) in json["announced"]?.objectValue ?? JSONObject() { box.announced[key] = value.stringValue }
        box.queue = (json["queue"]?.arrayValue ?? []).compactMap { p in
            guard let id = p["id"]?.stringValue, let body = p["body"] else { return nil }
            return Pending(id: id, body: body, attempts: Int(p["attempts"]?.intValue ?? 0), nextAttempt: p["nextAttempt"]?.intValue ?? 0)
        }
        return box
    }

    func save() throws {
        var announcedJSON = JSONObject()
        for (key, state) in announced { announcedJSON[key] = .string(state) }
        let queued: [JSONValue] = queue.map {
            ["id": .string($0.id), "body": $0.body, "attempts": .int(Int64($0.attempts)), "nextAttempt": .int($0.nextAttempt)]
        }
        let text = CanonicalJSON.string(["announced": .object(announcedJSON), "queue": .array(queued)])
        do { try Files.writeAtomically(Data(text.utf8), to: path, permissions: 0o600) } catch {
            throw CommandFailure(error.description, .ioError)
        }
    }

    /// Queues an event for every alert raised or cleared since the last evaluation.
    mutating func note(_ alerts: [Alert], webhook: String?, now: Int64) {
        let first = !existed
        for alert in alerts {
            let state = alert.isActive ? "raised" : "cleared"
            let before = announced[alert.key]
            guard before != state else { continue }
            announced[alert.key] = state
            guard webhook != nil, !(first && !alert.isActive) else { continue }
            if before == nil && !alert.isActive { enqueue(alert, "raised", now: now) }
            enqueue(alert, state, now: now)
        }
        existed = true
    }

    private mutating func enqueue(_ alert: Alert, _ event: String, now: Int64) {
        let id = "\(alert.key)|\(event)"
        let body: JSONValue = ["event": .string(event), "id": .string(id), "alert": AlertsReport.json(alert),
                               "at": .string(ISOTime.string(millisecondsSince1970: now))]
        queue.append(Pending(id: id, body: body, attempts: 0, nextAttempt: now))
    }

    /// Posts what is due; each success is saved at once, so a crash never posts an event twice.
    mutating func deliver(to webhook: String, now: Int64, transport: any HTTPTransport) async throws -> (sent: Int, failed: String?) {
        guard let url = URL(string: webhook) else { return (0, nil) }
        var sent = 0
        var failure: String?
        var i = 0
        while i < queue.count {
            guard queue[i].nextAttempt <= now else { i += 1; continue }
            var request = HTTPRequest(method: .post, url: url, headers: ["Content-Type": "application/json"],
                                      body: Data(CanonicalJSON.string(queue[i].body).utf8), timeouts: HTTPTimeouts(connect: 3, total: 10))
            request.headers["X-Fprint-Event"] = queue[i].id
            let why: String?
            do {
                let answer = try await transport.send(request)
                why = (200..<300).contains(answer.status) ? nil : "answered \(answer.status)"
            } catch {
                why = error.description
            }
            if let why {
                queue[i].attempts += 1
                queue[i].nextAttempt = now + min(3_600_000, 30_000 << min(queue[i].attempts - 1, 7))
                failure = why
                try save()
                // The receiver is down or refusing: the rest waits for the next command too.
                for j in queue.indices where j > i && queue[j].nextAttempt <= now { queue[j].nextAttempt = queue[i].nextAttempt }
                break
            }
            queue.remove(at: i)
            sent += 1
            try save()
        }
        return (sent, failure)
    }

    /// After a command evaluated: note, save, post what is due; a failure is a warning line, never the command's failure.
    static func deliverAfterEvaluating(_ ws: Workspace, settings: AlertSettings, alerts: [Alert], now: Int64) async {
        await deliverAfterEvaluating(outbox: path(ws), settings: settings, alerts: alerts, now: now)
    }

    static func deliverAfterEvaluating(outbox: String, settings: AlertSettings, alerts: [Alert], now: Int64) async {
        var box = load(outbox)
        box.note(alerts, webhook: settings.webhook, now: now)
        do {
            try box.save()
            guard let webhook = settings.webhook, !box.queue.isEmpty else { return }
            let (_, failure) = try await box.deliver(to: webhook, now: now, transport: CurlHTTPTransport(userAgent: "fprint/\(Fprint.version)"))
            if let failure {
                Terminal.err("warning: alert webhook \(webhook): \(failure); \(Terminal.counted(box.queue.count, "event")) kept to send later")
            }
        } catch {
            Terminal.err("warning: alert events: \(error)")
        }
    }
}
