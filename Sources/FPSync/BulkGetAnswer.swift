import FPCore
import Foundation

/// One document revision as a peer sent it, or a per-revision error.
package enum FetchedRevision: Sendable, Equatable {
    case ok(RevisionContent)
    case missing(id: String?, rev: String?, reason: String)
}

/// Reads the answers of `_bulk_get` and `GET ?open_revs=`: CouchDB's JSON
/// shapes and the multipart/mixed shape Sync Gateway 1.5 sends (one JSON
/// part per revision; `error="true"` parts for missing ones).
package enum BulkGetAnswer {
    package static func parse(body: Data, contentType: String?) throws(SyncError) -> [FetchedRevision] {
        let type = contentType?.lowercased() ?? "application/json"
        if type.hasPrefix("multipart/") {
            guard let boundary = MultipartHeaders.boundary(of: contentType ?? "") else {
                throw SyncError.protocolError("a multipart answer without a boundary")
            }
            return try multipart(body, boundary: boundary)
        }
        if let fast = canonicalResults(JSONSkim([UInt8](body))) { return fast }
        let value = try RemoteDatabase.parse(body, what: "_bulk_get")
        var out: [FetchedRevision] = []
        if let results = value["results"]?.arrayValue {
            // `_bulk_get` JSON: {"results":[{"id","docs":[{"ok":doc}|{"error":{…}}]}]}
            for result in results {
                guard let docs = result["docs"]?.arrayValue else {
                    throw SyncError.protocolError("_bulk_get: a result without docs")
                }
                for entry in docs { out.append(try revision(entry, fallbackID: result["id"]?.stringValue)) }
            }
        } else if let list = value.arrayValue {
            // `open_revs` JSON: [{"ok":doc}|{"missing":rev}]
            for entry in list { out.append(try revision(entry, fallbackID: nil)) }
        } else {
            throw SyncError.protocolError("_bulk_get: neither results nor an open_revs list")
        }
        return out
    }

    /// The `_bulk_get` JSON shape read with `JSONSkim`: documents whose text
    /// is canonical (fprint's gateway sends them so) are kept as text, never
    /// parsed; other entries are parsed one by one. nil when the answer is
    /// not that shape or not valid: the caller's parse then words the error.
    static func canonicalResults(_ skim: JSONSkim) -> [FetchedRevision]? {
        // One checking pass, collecting results → docs → entries → the documents' members.
        guard let root = skim.value(in: 0..<skim.bytes.count, levels: 6), let list = root["results"]?.elements else {
            return nil
        }
        var out: [FetchedRevision] = []
        for result in list {
            guard let entries = result["docs"]?.elements else { return nil }
            let fallbackID = result["id"].flatMap { try? skim.parse($0.value) }?.stringValue
            for entry in entries {
                if let ok = entry["ok"], let content = RevisionContent.fromCanonical(skim, document: ok) {
                    out.append(.ok(content))
                    continue
                }
                guard let parsed = try? skim.parse(entry.value),
                      let revision = try? revision(parsed, fallbackID: fallbackID) else { return nil }
                out.append(revision)
            }
        }
        return out
    }

    static func revision(_ entry: JSONValue, fallbackID: String?) throws(SyncError) -> FetchedRevision {
        if let doc = entry["ok"] { return .ok(try content(of: doc)) }
        if let error = entry["error"] {
            return .missing(id: error["id"]?.stringValue ?? fallbackID, rev: error["rev"]?.stringValue,
                            reason: error["reason"]?.stringValue ?? error["error"]?.stringValue ?? "error")
        }
        if let rev = entry["missing"]?.stringValue { return .missing(id: fallbackID, rev: rev, reason: "missing") }
        throw SyncError.protocolError("_bulk_get: an entry that is neither ok, error nor missing")
    }

    /// A document as JSON (with `_id`, `_rev`, `_revisions`, `_deleted`) → a
    /// revision with history. Inline attachments become stubs and bytes
    /// (`followed`: bytes of `"follows": true` entries, by name); a tombstone
    /// keeps its members, as the peer sent them.
    package static func content(of doc: JSONValue, followed: [String: [UInt8]] = [:]) throws(SyncError) -> RevisionContent {
        guard var object = doc.objectValue, let id = object["_id"]?.stringValue,
              let revText = object["_rev"]?.stringValue, let rev = Revision(revText)
        else { throw SyncError.protocolError("a document without a valid _id and _rev") }
        var history = [rev]
        if let revisions = object["_revisions"] {
            guard let parsed = RevisionContent.history(fromRevisions: revisions), parsed.first == rev else {
                throw SyncError.protocolError("document \(id): _revisions does not match _rev")
            }
            history = parsed
        }
        let deleted = object["_deleted"]?.boolValue ?? false
        // `_conflicts`, `_revisions`, … are the protocol's, not the body's; `_attachments` is kept as stubs.
        for key in object.keys where key.hasPrefix("_") && key != "_attachments" { object[key] = nil }
        let stubbed: Attachments.Stubbed
        do {
            stubbed = try Attachments.stubbing(.object(object), revpos: rev.generation, keepDigests: true, followed: followed)
        } catch {
            throw SyncError.protocolError("document \(id): \(error)")
        }
        return RevisionContent(id: id, rev: rev, deleted: deleted, body: stubbed.body, history: history,
                               attachmentData: stubbed.data)
    }

    /// One revision per part: a JSON document, a nested `multipart/related`
    /// document with its attachments, or an `error="true"` part.
    static func multipart(_ body: Data, boundary: String) throws(SyncError) -> [FetchedRevision] {
        var out: [FetchedRevision] = []
        for part in try parts(body, boundary: boundary) {
            let type = part.headers["content-type"] ?? "application/json"
            if type.lowercased().hasPrefix("multipart/") {
                // A document with attachments: its JSON, then one part per attachment.
                guard let inner = MultipartHeaders.boundary(of: type) else { throw SyncError.protocolError("nested multipart without boundary") }
                out.append(.ok(try related(Data(part.body), boundary: inner)))
                continue
            }
            let value = try RemoteDatabase.parse(Data(part.body), what: "a multipart part")
            if type.lowercased().contains("error=\"true\"") || value["error"] != nil && value["_id"] == nil {
                out.append(.missing(id: value["id"]?.stringValue, rev: value["rev"]?.stringValue,
                                    reason: value["reason"]?.stringValue ?? value["error"]?.stringValue ?? "error"))
            } else {
                out.append(.ok(try Self.content(of: value)))
            }
        }
        return out
    }

    /// A `multipart/related` document: the JSON part, then the bytes of its
    /// `"follows": true` attachments, named by filename or in order.
    static func related(_ body: Data, boundary: String) throws(SyncError) -> RevisionContent {
        let parts = try parts(body, boundary: boundary)
        guard let first = parts.first else { throw SyncError.protocolError("a multipart document without parts") }
        let doc = try RemoteDatabase.parse(Data(first.body), what: "a multipart document")
        let following = Attachments.following(in: doc)
        var followed: [String: [UInt8]] = [:]
        for (index, part) in parts.dropFirst().enumerated() {
            let named = part.headers["content-disposition"].flatMap(MultipartHeaders.filename(of:))
            guard let name = named ?? (index < following.count ? following[index] : nil) else { continue }
            followed[name] = part.body
        }
        return try content(of: doc, followed: followed)
    }

    /// The parts of an answer (FPCore's reader), its faults as protocol errors.
    static func parts(_ body: Data, boundary: String) throws(SyncError) -> [MultipartBody.Part] {
        do {
            return try MultipartBody.parts([UInt8](body), boundary: boundary)
        } catch {
            throw SyncError.protocolError("multipart answer: \(error)")
        }
    }
}
