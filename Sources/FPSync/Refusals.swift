import FPCore
import Foundation

/// A document a gateway refused (a per-document error in a `_bulk_docs`
/// answer, or 413 for the document alone), with the server's reason.
package struct Refusal: Sendable, Equatable {
    package var id: String
    package var rev: String
    /// The gateway's database URL, without credentials.
    package var gateway: String
    /// The server's words: `error: reason` of its answer.
    package var reason: String
    package var time: String

    package init(id: String, rev: String, gateway: String, reason: String, time: String) {
        self.id = id
        self.rev = rev
        self.gateway = gateway
        self.reason = reason
        self.time = time
    }

    package var json: JSONValue {
        ["id": .string(id), "rev": .string(rev), "gateway": .string(gateway), "reason": .string(reason),
         "time": .string(time)]
    }

    init?(_ value: JSONValue) {
        guard let id = value["id"]?.stringValue, let gateway = value["gateway"]?.stringValue else { return nil }
        self.init(id: id, rev: value["rev"]?.stringValue ?? "", gateway: gateway,
                  reason: value["reason"]?.stringValue ?? "refused", time: value["time"]?.stringValue ?? "")
    }
}

/// The refusals of every gateway, kept in the local `_local` document
/// `fprint-refusals` (never replicated; no schema change). The push retries
/// each refused document on every sync with that gateway, though its
/// checkpoint has moved past it, and drops the record once it is accepted;
/// `status` and `list --unsynced` show the reasons.
package struct RefusalLog: Sendable {
    package static let documentID = "fprint-refusals"
    package let store: any DocumentStore

    package init(store: any DocumentStore) { self.store = store }

    package func all() throws -> [Refusal] {
        (try store.localDocument(id: Self.documentID)?["refusals"]?.arrayValue ?? []).compactMap(Refusal.init)
    }

    package func refusals(gateway: String) throws -> [Refusal] {
        try all().filter { $0.gateway == gateway }
    }

    func save(_ refusals: [Refusal]) throws {
        try store.putLocalDocument(id: Self.documentID, body: ["refusals": .array(refusals.map(\.json))])
    }
}

/// The push's view of the log: loaded once, changed per batch by the upload
/// task (one at a time), written only when it changed.
final class RefusalBook: @unchecked Sendable {
    private let log: RefusalLog
    private let gateway: String
    private var entries: [Refusal]

    init(log: RefusalLog, gateway: String) throws {
        self.log = log
        self.gateway = gateway
        entries = try log.all()
    }

    /// Documents this gateway refused before.
    var refusedIDs: [String] { entries.filter { $0.gateway == gateway }.map(\.id) }

    /// Records this batch: refused documents replace their old record,
    /// accepted ones lose theirs.
    func update(refused: [Refusal], accepted: [String]) throws {
        let touched = Set(accepted).union(refused.map(\.id))
        let kept = entries.filter { $0.gateway != gateway || !touched.contains($0.id) }
        guard kept.count != entries.count || !refused.isEmpty else { return }
        entries = kept + refused
        try log.save(entries)
    }

    var current: [Refusal] { entries.filter { $0.gateway == gateway } }
}
