import FPCore
import FPDashboard
import Foundation
import HTTPTypes

/// `/_positions`: live positions (`fprint track --publish`) for the
/// dashboard's live view. Kept in memory only (`LivePositions`): they are
/// not measurements, so they are never stored or replicated.
///
/// - `POST /_positions` `{"device": "tablet-2", "positions": [{"map", "x", "y", "accuracy_m", "time"}, …]}`:
///   users and admins (viewers are refused before the body, as for every
///   write); 202 `{"ok": true, "accepted": N}`. `"stopped": true` (with or
///   without last positions) says the publisher has stopped: it leaves the map.
/// - `GET /_positions[?map=M]`: each publisher's latest position, newest first.
extension CouchHandler {
    /// Largest body: a batch of fixes, read only after authentication.
    static let positionsBodyLimit = 64 << 10
    static let positionsPerRequest = 100

    func positions(_ request: CouchRequest, _ user: GatewayUser) async throws -> Reply {
        guard request.segments.count == 1 else { throw CouchError.notFound("unknown endpoint") }
        switch request.method {
        case .get:
            let latest = await livePositions.latest(map: request.query["map"])
            return .json(.ok, ["positions": .array(latest.map(\.json))])
        case .post:
            let (device, fixes, stopped) = try Self.parsePositions(request.json())
            let publisher = device.map { "\(user.name)/\($0)" } ?? user.name
            await livePositions.publish(fixes, by: publisher)
            if stopped { await livePositions.stop(publisher) }
            return .json(.accepted, ["ok": true, "accepted": .int(Int64(fixes.count))])
        default:
            throw CouchError.methodNotAllowed
        }
    }

    /// The body's positions, or a 400 naming the first member at fault.
    static func parsePositions(_ body: JSONValue) throws -> (device: String?, positions: [LivePosition], stopped: Bool) {
        guard case .object(let object) = body else { throw CouchError.badRequest("the body must be a JSON object") }
        var device: String?
        if let value = object["device"], value != .null {
            guard let text = value.stringValue, LivePosition.isDeviceName(text) else {
                throw CouchError.badRequest("device: 1–64 letters, digits, '.', '_' or '-'")
            }
            device = text
        }
        var stopped = false
        if let value = object["stopped"], value != .null {
            guard let flag = value.boolValue else { throw CouchError.badRequest("stopped: true or false") }
            stopped = flag
        }
        let items = object["positions"]?.arrayValue ?? []
        guard (stopped ? 0 : 1)...positionsPerRequest ~= items.count, object["positions"] == nil || object["positions"]?.arrayValue != nil else {
            throw CouchError.badRequest("positions: an array of 1–\(positionsPerRequest) positions is required")
        }
        var positions: [LivePosition] = []
        for (index, item) in items.enumerated() {
            let at = "positions[\(index)]"
            guard let map = item["map"]?.stringValue, (1...64).contains(map.count),
                  !map.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
            else { throw CouchError.badRequest("\(at).map: a map id of 1–64 characters is required") }
            guard let x = item["x"]?.doubleValue, let y = item["y"]?.doubleValue, x.isFinite, y.isFinite else {
                throw CouchError.badRequest("\(at): x and y must be finite numbers (map units)")
            }
            var accuracy: Double?
            if let value = item["accuracy_m"], value != .null {
                guard let a = value.doubleValue, a.isFinite, a >= 0 else {
                    throw CouchError.badRequest("\(at).accuracy_m: a number of metres, 0 or more")
                }
                accuracy = a
            }
            guard let time = item["time"]?.stringValue, time.count <= 40, ISOTime.parse(time) != nil else {
                throw CouchError.badRequest("\(at).time: an ISO 8601 time is required, e.g. 2026-11-25T17:00:00.000Z")
            }
            positions.append(LivePosition(map: map, x: x, y: y, accuracyM: accuracy, time: time))
        }
        return (device, positions, stopped)
    }
}
