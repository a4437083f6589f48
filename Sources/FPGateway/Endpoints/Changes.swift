import FPCore
import Foundation
import Hummingbird

/// `_changes`: normal and longpoll answers, and the continuous and
/// eventsource feeds replicators keep open (one change a line).
extension CouchHandler {
    struct ChangesOptions {
        enum Feed: String { case normal, longpoll, continuous, eventsource }
        var feed = Feed.normal
        var since: Int64 = 0
        var limit = Int.max
        var allLeaves = false
        var includeDocs = false
        /// `attachments=true` with `include_docs`: the bytes inline, as CouchDB sends them.
        var attachments = false
        var timeout: Duration
        var heartbeat: Duration?
        /// `filter=_doc_ids` or `filter=_selector`.
        var filter: ChangesFilter?
    }

    func changes(_ request: CouchRequest) async throws -> Reply {
        let options = try await onStoreThread { try self.changesOptions(request) }
        switch options.feed {
        case .normal, .longpoll:
            var entries = try await changeEntries(since: options.since, options)
            if entries.isEmpty, options.feed == .longpoll {
                let deadline = ContinuousClock.now + options.timeout
                while entries.isEmpty, ContinuousClock.now < deadline {
                    if await notifier.isShuttingDown { break }
                    await notifier.waitForChange(after: options.since, timeout: deadline - ContinuousClock.now)
                    entries = try await changeEntries(since: options.since, options)
                }
            }
            let lastSeq = entries.last?.seq ?? options.since
            let store = self.store
            let pending = options.limit == Int.max ? 0 : try await onStoreThread { try store.changeCount(since: lastSeq) }
            let (found, budget) = (entries, self.budget)
            return .stream(.ok) { out in
                try await out.append(#"{"results":["#)
                try await out.appendRows(found, budget: budget) { try Self.changeRow($0, options, store) }
                try await out.append(#"],"last_seq":"\#(lastSeq)","pending":\#(pending)}"#)
            }
        case .continuous, .eventsource:
            let reply = Reply.stream(.ok) { out in try await self.feed(options, into: &out) }
            guard options.feed == .eventsource else { return reply }
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            return .withHeaders(headers, reply)
        }
    }

    /// A feed left open: changes as they commit, heartbeats (a newline)
    /// while idle, then `last_seq` when the timeout passes or the gateway stops.
    private func feed(_ options: ChangesOptions, into out: inout JSONChunkWriter) async throws {
        var since = options.since
        var sent = 0
        let deadline: ContinuousClock.Instant? = options.heartbeat == nil ? .now + options.timeout : nil
        let store = self.store
        while true {
            let entries = Array(try await changeEntries(since: since, options).prefix(options.limit - sent))
            try await RowBatch.forEach(entries, budget: budget, { try Self.changeRow($0, options, store) }) { index, row in
                if options.feed == .eventsource {
                    try await out.append("data: ")
                    try await out.append(row)
                    try await out.append("\nid: \"\(entries[index].seq)\"\n\n")
                } else {
                    try await out.append(row)
                    try await out.append("\n")
                }
                since = entries[index].seq
                sent += 1
            }
            try await out.flush()
            let stopping = await notifier.isShuttingDown
            if sent >= options.limit || stopping { break }
            var wait = options.heartbeat ?? options.timeout
            if let deadline {
                wait = min(wait, deadline - .now)
                if wait <= .zero { break }
            }
            let before = since
            await notifier.waitForChange(after: since, timeout: wait)
            if options.heartbeat != nil, try await onStoreThread({ try store.lastSequence() }) <= before {
                try await out.append("\n")
            }
        }
        if options.feed == .continuous {
            try await out.append(#"{"last_seq":"\#(since)","pending":0}"# + "\n")
        }
    }

    /// The changes after `since` that pass the filter, read a page at a time
    /// so a filtered feed never holds the whole database.
    private func changeEntries(since: Int64, _ options: ChangesOptions) async throws -> [ChangeEntry] {
        try await onStoreThread { try self.filteredChanges(since: since, options) }
    }

    private func filteredChanges(since: Int64, _ options: ChangesOptions) throws -> [ChangeEntry] {
        guard let filter = options.filter else { return try store.changeFeed(since: since, limit: options.limit) }
        var found: [ChangeEntry] = []
        var after = since
        while found.count < options.limit {
            let page = try store.changeFeed(since: after, limit: 500)
            for entry in page where found.count < options.limit {
                let admitted = try filter.admits(entry) {
                    try store.revision(id: entry.id, rev: entry.rev)?.body
                }
                if admitted { found.append(entry) }
            }
            guard let last = page.last, page.count == 500 else { break }
            after = last.seq
        }
        return found
    }

    private static func changeRow(_ entry: ChangeEntry, _ options: ChangesOptions, _ store: any ReplicableStore) throws -> [UInt8] {
        let revs = options.allLeaves ? entry.leaves : [entry.rev]
        var row: JSONValue = ["seq": .string(String(entry.seq)), "id": .string(entry.id),
                              "changes": .array(revs.map { ["rev": .string($0.description)] })]
        if entry.deleted { row["deleted"] = true }
        var doc: [UInt8]?
        if options.includeDocs {
            do {
                doc = try store.revisionText(id: entry.id, rev: entry.rev).map {
                    try documentBytes(store, $0, revs: false, attachments: options.attachments)
                }
            } catch let damage as DamagedDocument {
                // The change is still reported; only its body is missing, with why.
                row["doc"] = .null
                row["error"] = CouchError.damagedEntry(damage)
                return CanonicalJSON.bytes(row)
            }
        }
        var bytes = CanonicalJSON.bytes(row)
        if let doc {
            // Splice the stored text in as "doc", before the closing brace.
            bytes.removeLast()
            bytes += Array(#","doc":"#.utf8)
            bytes += doc
            bytes.append(UInt8(ascii: "}"))
        }
        return bytes
    }

    func changesOptions(_ request: CouchRequest) throws -> ChangesOptions {
        var query = request.query
        var docIDs: [String]?
        var selector: JSONValue?
        if request.method == .post, !request.body.isEmpty, let body = try? request.json().objectValue {
            for (k, v) in body {
                if let s = v.stringValue { query[k] = s } else if let i = v.intValue { query[k] = String(i) }
            }
            docIDs = body["doc_ids"]?.arrayValue?.compactMap(\.stringValue)
            selector = body["selector"]
        }
        var options = ChangesOptions(timeout: config.maxLongpoll)
        if let text = query["feed"] {
            guard let feed = ChangesOptions.Feed(rawValue: text) else {
                throw CouchError.badRequest("feed must be normal, longpoll, continuous or eventsource")
            }
            options.feed = feed
        }
        options.since = try Self.parseSince(query["since"], last: try store.lastSequence())
        if let text = query["limit"] {
            guard let value = Int(text), value >= 0 else { throw CouchError.badRequest("limit must be a non-negative integer") }
            options.limit = value == 0 ? 1 : value
        }
        options.allLeaves = query["style"] == "all_docs"
        options.includeDocs = query["include_docs"] == "true"
        options.attachments = options.includeDocs && query["attachments"] == "true"
        if let ms = query["timeout"].flatMap(Int64.init), ms >= 0 { options.timeout = min(options.timeout, .milliseconds(ms)) }
        if let ms = query["heartbeat"].flatMap(Int64.init), ms > 0 { options.heartbeat = .milliseconds(max(ms, 100)) }
        switch query["filter"] {
        case nil: break
        case "_doc_ids":
            if docIDs == nil, let text = query["doc_ids"] {
                guard let list = (try? CanonicalJSON.parse(text))?.arrayValue else {
                    throw CouchError.badRequest("doc_ids must be a JSON array of document ids")
                }
                docIDs = list.compactMap(\.stringValue)
            }
            guard let docIDs else { throw CouchError.badRequest("filter=_doc_ids needs doc_ids") }
            try Self.checkIDCount(docIDs.count, "_changes doc_ids")
            try DocumentIDs.check(docIDs, "a _changes doc_id")
            options.filter = .docIDs(Set(docIDs))
        case "_selector":
            guard let selector else { throw CouchError.badRequest("filter=_selector needs a POST body with a selector") }
            options.filter = .selector(try EqualitySelector(selector))
        case let other?:
            // Never a silent full feed for a filter this gateway cannot apply.
            throw CouchError.badRequest("filter \(other) is not supported here (only _doc_ids and _selector)")
        }
        return options
    }

    /// Sequences are sent as strings: clients must treat them as opaque.
    static func parseSince(_ text: String?, last: Int64) throws -> Int64 {
        guard let text, !text.isEmpty else { return 0 }
        if text == "now" { return last }
        let trimmed = text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2
            ? String(text.dropFirst().dropLast()) : text
        guard let value = Int64(trimmed), value >= 0 else {
            throw CouchError.badRequest("since must be a sequence this gateway handed out")
        }
        return value
    }
}
