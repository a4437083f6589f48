import FPCore
import FPNet
import Foundation

extension Replicator {
    /// Remote → local.
    package func pull(_ opening: SyncOpening? = nil) async throws(SyncError) -> SyncReport {
        var report = SyncReport(direction: .pull)
        let pair = try await checkpoints(.pull, opened: opening?.pull)
        let (repID, localCheckpoint, remoteCheckpoint) = (pair.repID, pair.local, pair.remote)
        let startValue = Self.startSequence(local: localCheckpoint, remote: remoteCheckpoint)
        // Sequences are opaque: whatever the peer sent is sent back as is.
        var since: JSONValue = startValue ?? 0
        // The page `open` asked on a guess, if the pull starts where it guessed.
        // (Not a `flatMap` with `? page : nil`: JSONValue takes `nil` as a
        // literal, so a wrong guess gave `.null` as the page, not no page.)
        var early: JSONValue?
        if let guessed = opening?.pullFeed, Self.sequenceText(guessed.since) == Self.sequenceText(since) { early = guessed.page }
        let session = Self.newSessionID()
        var previous = localCheckpoint
        var done = 0
        var total = 0
        var bulkGetWorks = true
        while true {
            let feed: JSONValue
            if let page = early {
                feed = page
                early = nil
            } else {
                feed = try await changesPage(since: since)
            }
            guard let results = feed["results"]?.arrayValue, let lastSeq = feed["last_seq"] else {
                throw SyncError.protocolError("_changes: no results or last_seq")
            }
            if results.isEmpty { break }
            let pending = Int(feed["pending"]?.intValue ?? 0)

            var asked: [String: [Revision]] = [:]
            var skipped = 0
            for row in results {
                guard let id = row["id"]?.stringValue, let changes = row["changes"]?.arrayValue else {
                    throw SyncError.protocolError("_changes: a row without id or changes")
                }
                // Design documents are not measurements; fprint never stores
                // `_` ids. They are skipped, not counted as examined (nor "already here").
                if id.hasPrefix("_") {
                    skipped += 1
                    continue
                }
                asked[id, default: []] += changes.compactMap { $0["rev"]?.stringValue.flatMap(Revision.init) }
            }
            let examined = results.count - skipped
            report.skipped += skipped
            report.examined += examined
            total = max(total, done + examined + pending)
            let askedNow = asked
            let missing = try await storeWork { [store] in try store.revsDiff(askedNow) }
            // Documents whose every revision is here already (the ones this
            // sync just pushed, say) are examined, not received.
            var wanted: [(id: String, rev: Revision)] = []
            for (id, revs) in missing.sorted(by: { $0.key < $1.key }) { wanted += revs.map { (id, $0) } }

            // Fetched and stored a slice at a time: slice N is stored by a
            // child task while slice N+1 is fetched, so two slices are held at
            // most. The checkpoint moves once the whole batch is stored.
            var index = 0
            var received = Set<String>()
            var toStore: [RevisionContent] = []
            while index < wanted.count || !toStore.isEmpty {
                let storing = toStore
                async let stored = outcome { () async throws(SyncError) in try await storeSlice(storing) }
                toStore = []
                let fetched: Result<[RevisionContent], SyncError>
                if index < wanted.count {
                    let slice = Array(wanted[index..<min(wanted.count, index + min(limits.count, Self.fetchSlice))])
                    index += slice.count
                    fetched = await outcome { () async throws(SyncError) in try await fetch(slice, bulkGetWorks: &bulkGetWorks) }
                } else {
                    fetched = .success([])
                }
                // The store is always waited for, and its error (the earlier slice) comes first.
                try await stored.get()
                let contents = try fetched.get()
                // Ids the protocol reserves are skipped, not fatal.
                if !dryRun { toStore = contents.filter { !$0.id.hasPrefix("_") } }
                received.formUnion(contents.map(\.id))
            }
            report.written += received.count
            done += examined
            progress(SyncProgress(direction: .pull, done: done, total: max(total, done), transferred: report.written))
            try await writeCheckpoint(repID, session: session, startSeq: startValue ?? 0, seq: lastSeq,
                                      previous: previous, report: report)
            previous = Checkpoint(sessionID: session, lastSeq: lastSeq, history: previous?.history ?? [])
            since = lastSeq
            if results.count < limits.count && feed["pending"] != nil && pending == 0 { break }
        }
        report.checkpoint = Self.sequenceText(since)
        return report
    }

    /// A sequence as the peer wants it back in a query string: strings
    /// verbatim, numbers as their digits, anything else as its JSON.
    static func sequenceText(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .int(let i): String(i)
        default: CanonicalJSON.string(value)
        }
    }

    /// Documents fetched and stored together: enough to amortise a request,
    /// few enough that their parsed trees stay small next to the batch.
    static let fetchSlice = 100

    /// Stores one slice; nothing to store is done at once.
    private func storeSlice(_ contents: [RevisionContent]) async throws(SyncError) {
        guard !contents.isEmpty else { return }
        try await storeWork { [store] in try store.putReplicated(contents, markSynced: true) }
    }

    /// Fetches one slice by `_bulk_get`, else (from the first refusal on) by `open_revs`.
    private func fetch(_ slice: [(id: String, rev: Revision)], bulkGetWorks: inout Bool) async throws(SyncError)
        -> [RevisionContent]
    {
        var got: [FetchedRevision]?
        if bulkGetWorks {
            got = try await bulkGet(slice)
            if got == nil { bulkGetWorks = false }
        }
        if got == nil { got = try await openRevs(slice) }
        var fetched: [RevisionContent] = []
        for item in got ?? [] {
            if case .ok(let content) = item { fetched.append(content) }
        }
        return fetched
    }

    /// `_bulk_get?revs=true&latest=true&attachments=true`; nil when the peer does not offer
    /// it (404/405/406/501: old CouchDB, Sync Gateway refusing JSON).
    func bulkGet(_ wanted: [(id: String, rev: Revision)]) async throws(SyncError) -> [FetchedRevision]? {
        let docs = JSONValue.array(wanted.map { ["id": .string($0.id), "rev": .string($0.rev.description)] })
        let response = try await remote.send(.post, ["_bulk_get"], query: [("revs", "true"), ("latest", "true"), ("attachments", "true")],
                                       json: ["docs": docs], accept: "application/json, multipart/mixed")
        if [400, 404, 405, 406, 415, 501].contains(response.status) { return nil }
        try remote.require(response, .post, ["_bulk_get"])
        return try BulkGetAnswer.parse(body: response.body, contentType: response.headers["Content-Type"])
    }

    /// The fallback: one `GET /db/id?revs=true&latest=true&open_revs=[…]` per document.
    func openRevs(_ wanted: [(id: String, rev: Revision)]) async throws(SyncError) -> [FetchedRevision] {
        var byID: [String: [Revision]] = [:]
        var order: [String] = []
        for (id, rev) in wanted {
            if byID[id] == nil { order.append(id) }
            byID[id, default: []].append(rev)
        }
        var out: [FetchedRevision] = []
        for id in order {
            let list = CanonicalJSON.string(.array(byID[id]!.map { .string($0.description) }))
            let response = try await remote.send(.get, [id], query: [("revs", "true"), ("latest", "true"), ("attachments", "true"),
                                                                    ("open_revs", list)],
                                           accept: "application/json, multipart/mixed")
            try remote.require(response, .get, [id])
            out += try BulkGetAnswer.parse(body: response.body, contentType: response.headers["Content-Type"])
        }
        return out
    }
}
