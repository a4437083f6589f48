import FPCore

/// The summary columns of a document, read from its body once, at write time,
/// so `list` never parses bodies. Every field has a fallback: documents from
/// the older apps or from other replicas may lack any key.
struct Summary {
    var createdAtMs: Int64
    var createdAt: String
    var level: String
    var mode: String
    var x: Double
    var y: Double
    var sessionId: String?
    var walkSeq: Int64?
    var bleCount: Int
    var wifiCount: Int
    var cellCount: Int
    var geoCount: Int

    init(body: JSONValue) {
        createdAt = body["createdAt"]?.stringValue ?? ""
        createdAtMs = ISOTime.milliseconds(createdAt) ?? 0
        level = body["level"]?.stringValue ?? ""
        mode = body["mode"]?.stringValue ?? ""
        // `position` keeps the exact point; `x`/`y` are rounded for the evaluator.
        let position = body["position"]
        x = position?["x"]?.doubleValue ?? body["x"]?.doubleValue ?? 0
        y = position?["y"]?.doubleValue ?? body["y"]?.doubleValue ?? 0
        sessionId = body["sessionId"]?.stringValue
        walkSeq = body["seq"]?.intValue
        bleCount = body["bleScans"]?.arrayValue?.count ?? 0
        wifiCount = body["wifiScans"]?.arrayValue?.count ?? 0
        cellCount = body["cellScans"]?.arrayValue?.count ?? 0
        geoCount = body["geolocation"]?.arrayValue?.count ?? 0
    }
}
