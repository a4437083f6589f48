import Foundation

extension LegacyImport {
    /// True for a document of the iOS Radio F-Prints app as its gateway
    /// holds it: no `mode`, a `startTime` and a `level` (position and
    /// numbers as strings, local times). Such documents reach a store by
    /// `fprint sync` from the old gateway, stored as they came.
    public static func isLegacyBody(_ body: JSONValue) -> Bool {
        guard body.objectValue != nil else { return false }
        return body["mode"] == nil && body["startTime"] != nil && body["level"] != nil
    }

    /// A stored legacy document read as a measurement, as `fprint import`
    /// converts it (numbers, times in `timeZone`, BLE `uuid` → `address`,
    /// `createdAt` and `durationMs` from the start and end), without an
    /// `imported` stamp: nothing was imported, the stored body is left as
    /// it is. Its attachments stay the stubs they were. Throws when the
    /// document cannot be read as a measurement (no whole-number position,
    /// a time no format reads), naming the member.
    public static func measurementBody(of body: JSONValue, id: String, timeZone: TimeZone) throws(ImportError) -> JSONValue {
        guard case .object(var doc) = body else { throw ImportError("\(id): expected an object") }
        var legacy: JSONObject = doc["legacy"]?.objectValue ?? [:]
        let attachments = doc["_attachments"]
        doc["_attachments"] = nil
        try normalize(&doc, legacy: &legacy, timeZone: timeZone, path: id)
        addTimes(&doc)
        try checkUsable(doc, path: id)
        if !legacy.isEmpty { doc["legacy"] = .object(legacy) }
        if let attachments { doc["_attachments"] = attachments }
        return .object(doc)
    }
}

extension LegacyImport {
    /// What a store's summary columns read of a legacy document: its map
    /// position (numbers written as strings) and its start in `timeZone`
    /// (the old apps wrote local times), so `list` places and dates it and
    /// `--since` finds it without the body being converted. Nil members
    /// where the document does not say.
    public static func summaryFacts(x: JSONValue?, y: JSONValue?, startTime: JSONValue?, timeZone: TimeZone)
        -> (x: Double?, y: Double?, startMs: Int64?)
    {
        func coordinate(_ v: JSONValue?) -> Double? {
            guard let v else { return nil }
            return v.doubleValue ?? number(v)?.doubleValue
        }
        return (coordinate(x), coordinate(y), startTime.flatMap { LegacyTime.milliseconds($0, timeZone: timeZone) })
    }
}
