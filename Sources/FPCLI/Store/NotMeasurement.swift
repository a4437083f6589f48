import FPCore

/// Why a stored document is not read as a measurement: a legacy Radio
/// F-Prints document, another application's, a design document or a
/// malformed one. Sync stores such documents unchanged (a CouchDB may hold
/// anything), so every reading command treats them as a value, never as a
/// failure: `list` marks them, `show` prints them raw, the rest skip them.
struct NotMeasurement: Sendable, Equatable {
    /// `legacy`, `design`, `probe` or `foreign`: list's MODE column.
    var kind: String
    var why: String
    /// A legacy document the converter reads: its measurement body, shown
    /// and exported as a measurement (`LegacyReading`), listed as legacy.
    var converted: JSONValue?

    /// Modes of the measurement contract; any other mode (or none) is not one.
    static let measurementModes: Set<String> = ["static", "walk"]

    /// What a document whose mode is not a measurement's is (nil: it claims
    /// to be a measurement; only reading it whole tells whether it is one).
    static func classify(id: String, body: JSONValue?) -> NotMeasurement? {
        if id.hasPrefix("_design/") { return NotMeasurement(kind: "design", why: "a design document") }
        guard let body, body.objectValue != nil else {
            return NotMeasurement(kind: "foreign", why: "the body is not a JSON object")
        }
        if let mode = body["mode"]?.stringValue, measurementModes.contains(mode) { return nil }
        if body["mode"]?.stringValue == ProbeRunDocument.mode {
            return NotMeasurement(kind: "probe", why: "a network probe run (fprint probe --every): no radio readings")
        }
        // The iOS app's documents: position as strings, "yyyy-MM-dd HH:mm:ss" times, no mode.
        switch LegacyReading.measurementBody(id: id, body: body) {
        case .success(let converted)?: return NotMeasurement(kind: "legacy", why: LegacyReading.note, converted: converted)
        case .failure(let error)?:
            return NotMeasurement(kind: "legacy", why: "a legacy Radio F-Prints document the converter cannot read: \(error)")
        case nil: break
        }
        if let mode = body["mode"]?.stringValue {
            return NotMeasurement(kind: "foreign", why: "mode '\(mode)' is neither static nor walk")
        }
        return NotMeasurement(kind: "foreign", why: "no mode (static or walk): another application's document")
    }

    /// A document that claims to be a measurement but fails its contract.
    static func malformed(_ error: Error) -> NotMeasurement {
        NotMeasurement(kind: "foreign", why: "it does not follow the measurement contract: \(error)")
    }
}

/// Counts the documents a command skipped as not measurements, by map, and
/// names them once on stderr at the end.
struct SkippedDocuments {
    private(set) var byLevel: [String: Int] = [:]

    mutating func add(level: String?) { byLevel[level ?? "", default: 0] += 1 }

    var total: Int { byLevel.values.reduce(0, +) }

    /// One line per map: "2 documents on J1NP are not measurements: skipped; …".
    func report() {
        for (level, n) in byLevel.sorted(by: { $0.key < $1.key }) {
            let on = level.isEmpty ? "" : " on \(level)"
            let are = n == 1 ? "is" : "are"
            let what = n == 1 ? "a measurement" : "measurements"
            Terminal.err("\(Terminal.counted(n, "document"))\(on) \(are) not \(what): skipped; `fprint list --foreign`")
        }
    }
}
