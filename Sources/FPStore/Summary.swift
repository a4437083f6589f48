import FPCore
import Foundation

/// The summary columns of a document, read from its body once, at write time,
/// so `list` never parses bodies. Every field has a fallback: documents from
/// the older apps or from other replicas may lack any key.
struct Summary: Equatable {
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
        self.init(member: { body[$0] }, arrayCount: { body[$0]?.arrayValue?.count })
    }

    /// From checked body text (`RevisionContent.bodyText`), parsing only
    /// the members read here: a received revision's body is stored without
    /// ever being parsed whole.
    init(bodyText text: [UInt8], members known: [JSONSkim.Member]? = nil) {
        let skim = JSONSkim(text)
        guard let members = known ?? skim.shallowMembers(of: 0..<text.count) else {
            self.init(body: (try? JSONParser.parse(text)) ?? .null)
            return
        }
        var values: [String: JSONValue] = [:], counts: [String: Int] = [:]
        for member in members {
            switch member.key {
            case "createdAt", "level", "mode", "position", "x", "y", "sessionId", "seq", "startTime":
                values[member.key] = try? skim.parse(member.value)
            case "bleScans", "wifiScans", "cellScans", "geolocation":
                // Arrays only, as `arrayValue?.count`; the count from the check if it was taken.
                guard text[member.value.lowerBound] == UInt8(ascii: "[") else { continue }
                counts[member.key] = member.node.count ?? skim.shallowCount(of: member.value)
            default: continue
            }
        }
        self.init(member: { values[$0] }, arrayCount: { counts[$0] })
    }

    private init(member: (String) -> JSONValue?, arrayCount: (String) -> Int?) {
        createdAt = member("createdAt")?.stringValue ?? ""
        createdAtMs = ISOTime.milliseconds(createdAt) ?? 0
        level = member("level")?.stringValue ?? ""
        mode = member("mode")?.stringValue ?? ""
        // `position` keeps the exact point; `x`/`y` are rounded for the evaluator.
        let position = member("position")
        x = position?["x"]?.doubleValue ?? member("x")?.doubleValue ?? 0
        y = position?["y"]?.doubleValue ?? member("y")?.doubleValue ?? 0
        sessionId = member("sessionId")?.stringValue
        walkSeq = member("seq")?.intValue
        bleCount = arrayCount("bleScans") ?? 0
        wifiCount = arrayCount("wifiScans") ?? 0
        cellCount = arrayCount("cellScans") ?? 0
        geoCount = arrayCount("geolocation") ?? 0
        if mode.isEmpty, !level.isEmpty, createdAt.isEmpty, let startTime = member("startTime") {
            // A legacy Radio F-Prints document (`LegacyImport.isLegacyBody`): position as
            // strings, a local start time read in this machine's zone, as `fprint import` reads it.
            let facts = LegacyImport.summaryFacts(x: member("x"), y: member("y"), startTime: startTime, timeZone: .current)
            x = facts.x ?? x
            y = facts.y ?? y
            if let start = facts.startMs {
                createdAtMs = start
                createdAt = ISOTime.string(millisecondsSince1970: start)
            }
        }
    }
}
