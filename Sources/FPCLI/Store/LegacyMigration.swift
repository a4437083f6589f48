import FPCore
import FPStore
import Foundation

/// `fprint migrate`'s work: which stored legacy documents get their
/// converted form, as children of their current winning revisions, and
/// which copies an earlier `fprint import` made of them are now stale.
enum LegacyMigration {
    struct Step {
        var id: String
        var level: String
        /// The winning revision now: the new one's parent.
        var parent: Revision
        var rev: Revision
        var body: JSONValue
        /// Conflicting leaves that are `fprint import`'s conversion of the
        /// same document from a dump: deleted, their content being `body`'s.
        var staleCopies: [Revision]
    }

    struct Plan {
        var steps: [Step] = []
        /// Legacy documents the converter cannot read, with why: left as they are.
        var unreadable: [String] = []
        var staleCopyCount: Int { steps.reduce(0) { $0 + $1.staleCopies.count } }
    }

    static func plan(store: SQLiteDocumentStore, map: String?, owner: String?, timeZone: TimeZone, by user: String,
                     at now: Date) throws -> Plan
    {
        var plan = Plan()
        // Legacy documents have no mode, so their summary's is empty.
        for item in try store.list(ListQuery(level: map)) where !item.deleted && item.mode.isEmpty {
            guard let stored = try store.document(id: item.id, includeDeleted: false),
                LegacyImport.isLegacyBody(stored.body),
                owner == nil || stored.body[MeasurementDocument.ownerKey]?.stringValue == owner
            else { continue }
            let converted: JSONValue
            do {
                converted = try LegacyImport.measurementBody(of: stored.body, id: item.id, timeZone: timeZone)
            } catch {
                plan.unreadable.append("\(error)")
                continue
            }
            let body = migrated(converted, original: stored.body, parent: stored.rev, by: user, at: now)
            plan.steps.append(Step(id: item.id, level: item.level, parent: stored.rev,
                                   rev: Revision.next(after: stored.rev, body: body), body: body,
                                   staleCopies: try staleCopies(store, id: item.id, winner: stored.rev)))
        }
        return plan
    }

    /// The converted body with the whole old one under `legacy.body` (its
    /// attachments stay at the top as the stubs they were) and who migrated
    /// it, when and from which revision. An unsigned one (owner `-` or
    /// none, as the iOS app left documents before upload) is signed by
    /// the migrating user; a signed one keeps its owner.
    static func migrated(_ converted: JSONValue, original: JSONValue, parent: Revision, by user: String, at now: Date)
        -> JSONValue
    {
        guard case .object(var doc) = converted, case .object(var old) = original else { return converted }
        old["_attachments"] = nil
        var legacy = doc["legacy"]?.objectValue ?? [:]
        legacy["body"] = .object(old)
        legacy["_rev"] = .string(parent.description)
        doc["legacy"] = .object(legacy)
        if [nil, "-", ""].contains(doc[MeasurementDocument.ownerKey]?.stringValue) {
            doc[MeasurementDocument.ownerKey] = .string(user)
        }
        doc["migrated"] = ["by": .string(user), "at": .string(ISOTime.string(now)), "from": .string(parent.description)]
        return .object(doc)
    }

    /// Leaves besides the winner that `fprint import` converted from a dump
    /// of the same document (`imported` and `legacy._rev`): syncing with the
    /// old server made them conflicts of its revision.
    static func staleCopies(_ store: SQLiteDocumentStore, id: String, winner: Revision) throws -> [Revision] {
        try store.conflicts(id: id).filter { leaf in
            guard let content = try store.revision(id: id, rev: leaf), !content.deleted else { return false }
            return content.body["imported"] != nil && content.body["legacy"]?["_rev"]?.stringValue != nil
        }
    }

    /// Writes the new revisions in one transaction (each only if its parent
    /// is still the winner), then deletes the stale copies.
    static func apply(_ plan: Plan, store: SQLiteDocumentStore) throws {
        let applied = try store.updateWhereCurrent(plan.steps.map {
            DocumentUpdate(id: $0.id, body: $0.body, expected: $0.parent)
        })
        if applied.count != plan.steps.count {
            Terminal.err("warning: \(plan.steps.count - applied.count) documents changed while migrating: run fprint migrate again")
        }
        var tombstones: [RevisionContent] = []
        for step in plan.steps {
            for leaf in step.staleCopies {
                guard let content = try store.revision(id: step.id, rev: leaf) else { continue }
                let rev = Revision.next(after: leaf, body: [:], deleted: true)
                tombstones.append(RevisionContent(id: step.id, rev: rev, deleted: true, body: [:],
                                                  history: [rev] + content.history))
            }
        }
        try store.putReplicated(tombstones, markSynced: false)
    }
}
