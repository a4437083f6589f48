import FPCore
import FPStore
import FPTestSupport
import Foundation
import Testing

/// A small measurement body with the keys the summary columns read.
func measurementBody(
    level: String = "J1NP", createdAt: String = "2026-11-22T06:00:00.000Z", mode: String = "static",
    x: Int64 = 363, y: Int64 = 701, position: (Double, Double)? = nil, sessionId: String? = nil,
    seq: Int64? = nil, ble: Int = 2, wifi: Int = 1, cells: Int = 1, fixes: Int = 0, note: String = ""
) -> JSONValue {
    var body: JSONValue = [
        "type": "scan", "level": .string(level), "createdAt": .string(createdAt), "mode": .string(mode),
        "x": .int(x), "y": .int(y), "note": .string(note),
        "bleScans": .array((0..<ble).map { ["address": .string("C4:7C:8D:00:00:\($0)"), "rssi": -60, "time": .int(Int64($0))] }),
        "wifiScans": .array((0..<wifi).map { ["mac": .string("00:1a:2b:3c:4d:\($0)"), "ssid": "eduroam", "rssi": -50, "time": 0] }),
        "cellScans": .array((0..<cells).map { _ in ["type": "lte", "rssi": -85, "time": 0] }),
        "geolocation": .array((0..<fixes).map { _ in ["lat": 50.2, "long": 15.8, "time": 0] }),
    ]
    if let (px, py) = position { body["position"] = ["x": .double(px), "y": .double(py), "rule": "surveyed"] }
    if let sessionId { body["sessionId"] = .string(sessionId) }
    if let seq { body["seq"] = .int(seq) }
    return body
}

/// A fresh temporary folder, removed by the caller's `defer`.
func temporaryFolder() throws -> URL { try makeTemporaryFolder("fpstore-tests") }

/// Matches `N-<32 hex>`.
func isRevisionText(_ text: String) -> Bool {
    text.wholeMatch(of: /[0-9]+-[0-9a-f]{32}/) != nil
}

/// Expects `work` to throw exactly `expected`.
func expectStoreError<T>(
    _ expected: StoreError, sourceLocation: SourceLocation = #_sourceLocation, _ work: () throws -> T
) {
    do {
        _ = try work()
        Issue.record("expected \(expected), but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}
