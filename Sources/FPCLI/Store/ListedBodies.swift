import FPConfig
import FPCore
import FPStore
import Foundation

/// What `list` reads from bodies beyond the summary columns: only for the
/// rows that need it, so a list of measurements stays a read of summaries.
enum ListedBodies {
    /// The listed documents that are not measurements, by id, with why. Only
    /// rows whose stored mode is not static or walk are read; a damaged body
    /// is left unmarked (`fprint check` names it).
    static func notMeasurements(_ items: [DocumentSummary], store: SQLiteDocumentStore) -> [String: NotMeasurement] {
        var out: [String: NotMeasurement] = [:]
        for item in items where !item.deleted && !NotMeasurement.measurementModes.contains(item.mode) {
            guard let stored = try? store.document(id: item.id, includeDeleted: false) else { continue }
            out[item.id] = NotMeasurement.classify(id: item.id, body: stored.body)
        }
        return out
    }

    /// `--owner`, `--device`, `--os`: members of the body the summary columns
    /// do not hold, so each candidate's body is read (only when one is given).
    struct Filter {
        var owner: String?
        var deviceId: String?
        /// A piece of "osName osId", any case.
        var os: String?

        var isEmpty: Bool { owner == nil && deviceId == nil && os == nil }

        func matches(_ body: JSONValue) -> Bool {
            if let owner, body[MeasurementDocument.ownerKey]?.stringValue != owner { return false }
            if let deviceId, body["deviceId"]?.stringValue != deviceId { return false }
            if let os {
                let name = [body["osName"]?.stringValue, body["osId"]?.stringValue].compactMap { $0 }.joined(separator: " ")
                if name.range(of: os, options: .caseInsensitive) == nil { return false }
            }
            return true
        }
    }

    /// The items whose bodies match; deletions (no body) and damaged bodies do not.
    static func matching(_ items: [DocumentSummary], _ filter: Filter, store: SQLiteDocumentStore) -> [DocumentSummary] {
        items.filter { item in
            guard !item.deleted, let stored = try? store.document(id: item.id, includeDeleted: false) else { return false }
            return filter.matches(stored.body)
        }
    }

    /// "J1NP: Univerzita Hradec Králové" for each listed map the app config gives a location.
    static func locationLines(levels: [String], config: LoadedConfig?) -> [String] {
        guard let config else { return [] }
        return Set(levels).sorted().compactMap { level in
            guard let location = config.appConfig.map(id: level)?.location, !location.isEmpty else { return nil }
            return ControlText.escaped("\(level): \(location)")
        }
    }
}
