import FPCore
import Foundation

/// One stored measurement as the dashboard lists it: where, when and by whom.
package struct SurveyPoint: Sendable, Equatable {
    package var id: String
    package var map: String
    package var x: Double
    package var y: Double
    package var createdAtMs: Int64
    /// The walk it belongs to (nil: a static measurement).
    package var session: String?
    package var seq: Int?
    /// `couchbase_sync_gateway_id`: who signed it ("-" before a push signed it).
    package var owner: String
    /// Its network probes (`networkProbes[]`): the map's Network page reads these documents only.
    package var probes: Int = 0

    /// The keys the dashboard reads, decoded from the stored text without
    /// building the document's tree (its scans are thousands of entries).
    private struct Lean: Decodable {
        var level: String?
        var x: Double?
        var y: Double?
        var createdAt: String?
        var sessionId: String?
        var seq: Int?
        var couchbase_sync_gateway_id: String?
        var networkProbes: [Counted]?
    }

    /// Any element, counted and not decoded.
    private struct Counted: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// nil for a text that is no measurement (no position): it is not drawn.
    init?(id: String, text: String) {
        guard let lean = try? JSONDecoder().decode(Lean.self, from: Data(text.utf8)), let x = lean.x, let y = lean.y,
              x.isFinite, y.isFinite else { return nil }
        self.init(id: id, map: lean.level ?? "", x: x, y: y,
                  createdAtMs: lean.createdAt.flatMap(ISOTime.milliseconds) ?? 0, session: lean.sessionId, seq: lean.seq,
                  owner: lean.couchbase_sync_gateway_id ?? MeasurementDocument.unsignedOwner)
        probes = lean.networkProbes?.count ?? 0
    }

    package init(id: String, map: String, x: Double, y: Double, createdAtMs: Int64, session: String?, seq: Int?,
                 owner: String) {
        self.id = id
        self.map = map
        self.x = x
        self.y = y
        self.createdAtMs = createdAtMs
        self.session = session
        self.seq = seq
        self.owner = owner
    }
}

/// Every live document's `SurveyPoint`, kept up to date from the store's
/// change feed: a page reads only what changed since the last one, so
/// pages cost a sequence lookup, not a read of every document. Memory is a
/// small record per document.
package actor SurveyIndex {
    private let store: any ReplicableStore
    private var points: [String: SurveyPoint] = [:]
    private var sequence: Int64 = 0
    /// Changes read per store trip.
    static let batch = 500

    package init(store: any ReplicableStore) {
        self.store = store
    }

    /// The index as of now.
    package func snapshot() async throws -> [SurveyPoint] {
        try await refresh()
        return Array(points.values)
    }

    /// The index as of now and the store sequence it reaches: a page drawn
    /// from both, and a live view started at that sequence, miss nothing and repeat nothing.
    package func snapshotWithSequence() async throws -> (points: [SurveyPoint], sequence: Int64) {
        try await refresh()
        return (Array(points.values), sequence)
    }

    /// The points that changed after `since` (new or edited, not deleted), and the sequence they reach.
    package func changes(after since: Int64) async throws -> (points: [SurveyPoint], sequence: Int64) {
        let store = self.store
        let read = try await BlockingWork.run("fprint.dashboard.store") { () throws -> ([SurveyPoint], Int64) in
            let entries = try store.changeFeed(since: since, limit: Self.batch)
            let found = try entries.filter { !$0.deleted }.compactMap { entry in
                try store.revisionText(id: entry.id, rev: entry.rev).flatMap { SurveyPoint(id: entry.id, text: $0.canonicalBody) }
            }
            return (found, entries.last?.seq ?? since)
        }
        return read
    }

    /// The store's last sequence.
    package func lastSequence() async throws -> Int64 {
        let store = self.store
        return try await BlockingWork.run("fprint.dashboard.store") { () throws(StoreError) -> Int64 in try store.lastSequence() }
    }

    private func refresh() async throws {
        let store = self.store
        while true {
            let since = sequence
            let (entries, texts) = try await BlockingWork.run("fprint.dashboard.store") {
                () throws -> ([ChangeEntry], [String: SurveyPoint]) in
                let entries = try store.changeFeed(since: since, limit: Self.batch)
                var read: [String: SurveyPoint] = [:]
                for entry in entries where !entry.deleted {
                    if let text = try store.revisionText(id: entry.id, rev: entry.rev),
                       let point = SurveyPoint(id: entry.id, text: text.canonicalBody) {
                        read[entry.id] = point
                    }
                }
                return (entries, read)
            }
            for entry in entries { points[entry.id] = texts[entry.id] }
            guard let last = entries.last else { return }
            sequence = last.seq
            if entries.count < Self.batch { return }
        }
    }
}
