import FPCore
import Foundation
import HTTPTypes

/// `_bulk_get`: `{"results":[{"id","docs":[{"ok":doc}|{"error":…}]}]}`,
/// each revision as stored text, never parsed. Asked with `Accept:
/// multipart/mixed`, one part per revision instead, as Sync Gateway
/// answers: `application/json` for a document (attachments inline),
/// `application/json; error="true"` for what is missing.
///
/// An entry asked again, or a revision reached again through `latest`, is
/// answered once. The entries are resolved to revision ids first, then the
/// answer is streamed a revision at a time: an entry whose `latest` leads
/// to many leaves is not one row of all of them.
extension CouchHandler {
    func bulkGet(_ body: JSONValue, revs: Bool, latest: Bool, attachments: Bool, multipart: Bool) throws -> Reply {
        guard let docs = body["docs"]?.arrayValue else { throw CouchError.badRequest("POST body must include `docs` parameter.") }
        try Self.checkIDCount(docs.count, "_bulk_get docs")
        var entries: [BulkGetEntry] = [], seen = Set<BulkGetEntry>()
        for item in docs {
            guard let id = item["id"]?.stringValue else { throw CouchError.badRequest("every _bulk_get entry needs an id") }
            try DocumentIDs.check(id, "a _bulk_get id")
            let entry = BulkGetEntry(id: id, rev: item["rev"]?.stringValue)
            if seen.insert(entry).inserted { entries.append(entry) }
        }
        let answer = BulkGetStream(targets: try BulkGetEntry.targets(entries, store, latest: latest), revs: revs,
                                   attachments: attachments, boundary: multipart ? Multipart.newBoundary() : nil)
        let (store, budget) = (self.store, self.budget)
        return .stream(.ok, contentType: answer.contentType) { out in
            try await RowBatch.run(from: answer, budget: budget, { try $0.next(store) }) { try await out.append($0) }
        }
    }
}

/// One entry of a `_bulk_get` request.
struct BulkGetEntry: Hashable, Sendable {
    var id: String
    var rev: String?

    /// What the entries ask for, in order, each revision once: the entry's
    /// revision (with `latest`, the leaves it leads to, each document's
    /// leaves read once for all its entries), the winner when it names
    /// none, or why there is none. An entry all of whose revisions an
    /// earlier one was answered with is left out.
    static func targets(_ entries: [BulkGetEntry], _ store: any ReplicableStore, latest: Bool) throws -> [BulkGetTarget] {
        var asked: [String: [Revision]] = [:], askedIndex: [String: [Revision: Int]] = [:]
        if latest {
            for entry in entries {
                guard let rev = entry.rev.flatMap(Revision.init), askedIndex[entry.id]?[rev] == nil else { continue }
                askedIndex[entry.id, default: [:]][rev] = asked[entry.id]?.count ?? 0
                asked[entry.id, default: []].append(rev)
            }
        }
        var resolved: [String: Result<LatestLeaves, DamagedDocument>] = [:]
        var answered = Set<Answered>()
        var targets: [BulkGetTarget] = []
        var entryIndex = 0
        for entry in entries {
            let what: [BulkGetTarget.What]
            do {
                what = try entry.answers(store, latest: latest, resolved: &resolved, asked: asked, askedIndex: askedIndex)
            } catch let damage as DamagedDocument {
                // One unreadable document costs its own entry, not the answer.
                what = [.error(CouchError.damagedEntry(damage))]
            }
            let fresh = what.filter { item in
                guard case .revision(let rev) = item else { return true }
                return answered.insert(Answered(id: entry.id, rev: rev)).inserted
            }
            guard !fresh.isEmpty else { continue }
            targets += fresh.map { BulkGetTarget(id: entry.id, entry: entryIndex, what: $0) }
            entryIndex += 1
        }
        return targets
    }

    private struct Answered: Hashable {
        var id: String
        var rev: Revision
    }

    private func answers(_ store: any ReplicableStore, latest: Bool, resolved: inout [String: Result<LatestLeaves, DamagedDocument>],
                         asked: [String: [Revision]], askedIndex: [String: [Revision: Int]]) throws -> [BulkGetTarget.What] {
        guard let rev else {
            guard let winner = try store.leaves(id: id).first else { return [.error(Self.missing(id, "undefined"))] }
            return [.revision(winner.rev)]
        }
        guard let parsed = Revision(rev) else { return [.error(Self.missing(id, rev))] }
        guard latest, let index = askedIndex[id]?[parsed] else { return [.revision(parsed)] }
        let leaves: LatestLeaves
        if let known = resolved[id] {
            leaves = try known.get()
        } else {
            do {
                leaves = try LatestLeaves(store, id: id, asked: asked[id] ?? [])
                resolved[id] = .success(leaves)
            } catch let damage as DamagedDocument {
                // Each of its entries names the damage.
                resolved[id] = .failure(damage)
                throw damage
            }
        }
        guard leaves.reached.contains(index) else { return [.error(Self.missing(id, rev))] }
        return leaves.leaves.filter { $0.firstAsker == index }.map { .revision($0.rev) }
    }

    static func missing(_ id: String, _ rev: String) -> JSONValue {
        ["id": .string(id), "rev": .string(rev), "error": "not_found", "reason": "missing"]
    }
}

/// One revision of a `_bulk_get` answer, or why there is none, in the entry it answers.
struct BulkGetTarget: Sendable {
    enum What: Sendable {
        case revision(Revision)
        /// `{"id","rev","error","reason"}`.
        case error(JSONValue)
    }

    var id: String
    /// Which entry of the answer (JSON answers group a document's revisions by entry).
    var entry: Int
    var what: What
}

/// Where a `_bulk_get` answer stands: its revisions are read and sent one
/// at a time.
struct BulkGetStream: Sendable {
    let targets: [BulkGetTarget]
    let revs: Bool
    let attachments: Bool
    /// The `multipart/mixed` boundary; nil: JSON.
    let boundary: String?
    private var next = 0
    private var opened = false
    private var closed = false

    init(targets: [BulkGetTarget], revs: Bool, attachments: Bool, boundary: String?) {
        (self.targets, self.revs, self.attachments, self.boundary) = (targets, revs, attachments, boundary)
    }

    var contentType: String { boundary.map { "multipart/mixed; boundary=\"\($0)\"" } ?? "application/json" }

    /// The next piece, the answer's opening in front of the first: one
    /// revision, or one error; then the close; nil after that.
    mutating func next(_ store: any ReplicableStore) throws -> [UInt8]? {
        var out: [UInt8] = []
        if !opened, boundary == nil { out += Array(#"{"results":["#.utf8) }
        opened = true
        guard next < targets.count else {
            guard !closed else { return nil }
            closed = true
            guard let boundary else { return out + Array((targets.isEmpty ? "]}" : "]}]}").utf8) }
            return out + Multipart.closing(boundary)
        }
        let target = targets[next]
        let previous = next > 0 ? targets[next - 1].entry : nil
        next += 1
        let answer = try read(target, store)
        guard let boundary else {
            if previous != target.entry {
                if previous != nil { out += Array("]},".utf8) }
                out += Array(#"{"id":"#.utf8)
                CanonicalJSON.write(.string(target.id), into: &out)
                out += Array(#","docs":["#.utf8)
            } else {
                out.append(UInt8(ascii: ","))
            }
            switch answer {
            case .success(let text):
                out += Array(#"{"ok":"#.utf8)
                out += text
                out.append(UInt8(ascii: "}"))
            case .failure(let error):
                CanonicalJSON.write(["error": error.entry], into: &out)
            }
            return out
        }
        switch answer {
        case .success(let text):
            return Multipart.jsonPart(text, boundary: boundary)
        case .failure(let error):
            // An error part carries its HTTP status, as Sync Gateway's do.
            var entry = error.entry
            entry["status"] = entry["error"]?.stringValue == "not_found" ? 404 : 500
            return Multipart.jsonPart(CanonicalJSON.bytes(entry), boundary: boundary, error: true)
        }
    }

    private struct EntryError: Error {
        var entry: JSONValue
    }

    /// A revision's document as the bulk readers send it (attachments inline when asked), or its error entry.
    private func read(_ target: BulkGetTarget, _ store: any ReplicableStore) throws -> Result<[UInt8], EntryError> {
        switch target.what {
        case .error(let entry):
            return .failure(EntryError(entry: entry))
        case .revision(let rev):
            do {
                guard let stored = try store.revisionText(id: target.id, rev: rev) else {
                    return .failure(EntryError(entry: BulkGetEntry.missing(target.id, rev.description)))
                }
                return .success(try CouchHandler.documentBytes(store, stored, revs: revs, attachments: attachments))
            } catch let damage as DamagedDocument {
                // One unreadable revision costs its own entry, not the answer.
                return .failure(EntryError(entry: CouchError.damagedEntry(damage)))
            }
        }
    }
}
