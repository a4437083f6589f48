import FPCore
import Foundation

/// Legacy Radio F-Prints documents (what the old gateway holds, brought by
/// `fprint sync`) are read as measurements where they are: through the
/// converter `fprint import` uses, in this machine's time zone, without
/// being rewritten. `fprint migrate` stores the converted form for good.
enum LegacyReading {
    /// The zone the old apps' local times are read in (TZ sets it).
    static var timeZone: TimeZone { .current }

    /// The measurement body of a stored legacy document; nil for any other
    /// document; a failure names why a legacy one cannot be read.
    static func measurementBody(id: String, body: JSONValue) -> Result<JSONValue, LegacyImport.ImportError>? {
        guard LegacyImport.isLegacyBody(body) else { return nil }
        return Result { () throws(LegacyImport.ImportError) in
            try LegacyImport.measurementBody(of: body, id: id, timeZone: timeZone)
        }
    }

    /// The line `show` and the reading commands say about them.
    static let note = "a legacy Radio F-Prints document, read through the converter and stored unchanged (`fprint migrate` stores it converted)"
}

/// Counts the legacy documents a command read through the converter, by
/// map, and says so once on stderr at the end (as `SkippedDocuments`).
struct LegacyReads {
    private(set) var byLevel: [String: Int] = [:]

    mutating func add(level: String) { byLevel[level, default: 0] += 1 }

    func report() {
        for (level, n) in byLevel.sorted(by: { $0.key < $1.key }) {
            let on = level.isEmpty ? "" : " on \(level)"
            Terminal.err("\(Terminal.counted(n, "legacy Radio F-Prints document"))\(on) read through the converter; `fprint migrate` stores them converted")
        }
    }
}
