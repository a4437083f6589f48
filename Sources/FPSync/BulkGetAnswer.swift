import FPCore
import Foundation

/// One document revision as a peer sent it, or a per-revision error.
package enum FetchedRevision: Sendable, Equatable {
    case ok(RevisionContent)
    case missing(id: String?, rev: String?, reason: String)
}

/// Reads the answers of `_bulk_get` and `GET ?open_revs=`: CouchDB's JSON
/// shapes and the multipart/mixed shape Sync Gateway 1.5 sends (one JSON
/// part per revision; `error="true"` parts for missing ones). Documents keep
/// their text as the peer sent it (`RevisionContent.received`): members in
/// their order, number text, nested members in theirs.
package enum BulkGetAnswer {
    package static func parse(body: Data, contentType: String?) throws(SyncError) -> [FetchedRevision] {
        let type = contentType?.lowercased() ?? "application/json"
        if type.hasPrefix("multipart/") {
            guard let boundary = MultipartHeaders.boundary(of: contentType ?? "") else {
                throw SyncError.protocolError("a multipart answer without a boundary")
            }
            return try multipart(body, boundary: boundary)
        }
        if let fast = try textResults(JSONSkim([UInt8](body))) { return fast }
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

    /// Both JSON shapes read with `JSONSkim` in one checking pass: each
    /// document is split from its text (`received`); other entries are
    /// parsed one by one. nil when the answer is neither shape or not text
    /// the skim takes: the caller's parse then words the error.
    static func textResults(_ skim: JSONSkim) throws(SyncError) -> [FetchedRevision]? {
        // Collected: results → docs → entries → the documents' members (or entries → documents' members).
        guard let root = skim.value(in: 0..<skim.bytes.count, levels: 6) else { return nil }
        var out: [FetchedRevision] = []
        func entry(_ node: JSONSkim.Node, fallbackID: String?) throws(SyncError) -> Bool {
            if let ok = node["ok"], let content = try received(skim, ok) {
                out.append(.ok(content))
                return true
            }
            guard let parsed = try? skim.parse(node.value) else { return false }
            out.append(try revision(parsed, fallbackID: fallbackID))
            return true
        }
        if let list = root["results"]?.elements {
            for result in list {
                guard let entries = result["docs"]?.elements else { return nil }
                let fallbackID = result["id"].flatMap { try? skim.parse($0.value) }?.stringValue
                for node in entries where try !entry(node, fallbackID: fallbackID) { return nil }
            }
        } else if let entries = root.elements {
            for node in entries where try !entry(node, fallbackID: nil) { return nil }
        } else {
            return nil
        }
        return out
    }

    /// A document's text split as it came; nil when it takes the parser's way.
    static func received(_ skim: JSONSkim, _ document: JSONSkim.Node, followed: [String: [UInt8]] = [:])
        throws(SyncError) -> RevisionContent?
    {
        do {
            return try RevisionContent.received(skim, document: document, followed: followed)?.content
        } catch {
            let id = document["_id"].flatMap { try? skim.parse($0.value) }?.stringValue ?? "?"
            throw SyncError.protocolError("document \(id): \(error)")
        }
    }

    /// One document's JSON text (a multipart part): split as it came, else parsed.
    static func document(_ text: [UInt8], followed: [String: [UInt8]] = [:]) throws(SyncError) -> RevisionContent {
        let skim = JSONSkim(text)
        if let node = skim.value(in: 0..<text.count, levels: 1), let content = try received(skim, node, followed: followed) {
            return content
        }
        return try content(of: RemoteDatabase.parse(Data(text), what: "a multipart document"), followed: followed)
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

    /// A parsed document (with `_id`, `_rev`, `_revisions`, `_deleted`) → a
    /// revision with history, for text the skim did not take: its values
    /// are kept, its member order is not. Inline attachments become stubs
    /// and bytes (`followed`: bytes of `"follows": true` entries, by name); a
    /// tombstone keeps its members, as the peer sent them.
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
            stubbed = try Attachments.stubbing(.object(object), revpos: 0, keepDigests: true, followed: followed)
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
            // A document part is skimmed once and kept as text; only a part
            // the skim does not take, or an error part, is parsed.
            let skim = JSONSkim(part.body)
            let node = skim.value(in: 0..<part.body.count, levels: 1)
            let errorPart = type.lowercased().contains("error=\"true\"")
            if let node, !errorPart, node["_id"] != nil || node["error"] == nil && node["missing"] == nil,
               let content = try received(skim, node) {
                out.append(.ok(content))
                continue
            }
            let value = try RemoteDatabase.parse(Data(part.body), what: "a multipart part")
            if errorPart || value["error"] != nil && value["_id"] == nil {
                out.append(.missing(id: value["id"]?.stringValue, rev: value["rev"]?.stringValue ?? value["missing"]?.stringValue,
                                    reason: value["reason"]?.stringValue ?? value["error"]?.stringValue ?? "missing"))
            } else if value["missing"] != nil && value["_id"] == nil {
                out.append(.missing(id: nil, rev: value["missing"]?.stringValue, reason: "missing"))
            } else {
                out.append(.ok(try content(of: value)))
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
        let following = Attachments.following(in: doc, text: first.body)
        var followed: [String: [UInt8]] = [:]
        for (index, part) in parts.dropFirst().enumerated() {
            let named = part.headers["content-disposition"].flatMap(MultipartHeaders.filename(of:))
            guard let name = named ?? (index < following.count ? following[index] : nil) else { continue }
            followed[name] = part.body
        }
        return try document(first.body, followed: followed)
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
