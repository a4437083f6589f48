extension LegacyImport {
    /// The iOS app kept a measurement's times only as `startTime` and
    /// `endTime`: a converted document also gets `createdAt` (its start) and
    /// `durationMs`, as fprint writes them, so `list --since`, the CSV's
    /// `created_at` and `show`'s duration read them. Called after the times
    /// are read (local times in `--timezone`, else this machine's zone) and
    /// only on the converting path: a document already in the contract
    /// keeps its own members.
    static func addTimes(_ doc: inout JSONObject) {
        let start = doc["startTime"]?.stringValue.flatMap(ISOTime.milliseconds)
        if doc["createdAt"] == nil, start != nil, let text = doc["startTime"] { doc["createdAt"] = text }
        if doc["durationMs"] == nil, let start, let end = doc["endTime"]?.stringValue.flatMap(ISOTime.milliseconds),
            end >= start
        {
            doc["durationMs"] = .int(end - start)
        }
    }
}
