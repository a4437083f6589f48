import FPCore
import FPNet
import Foundation

extension Replicator {
    /// Remote → local.
    public func pull() throws(SyncError) -> SyncReport {
        var report = SyncReport(direction: .pull)
        let repID = try replicationID(.pull)
        let (localCheckpoint, remoteCheckpoint) = try readCheckpoints(repID)
        let startValue = Self.startSequence(local: localCheckpoint, remote: remoteCheckpoint)
        // Sequences are opaque: whatever the peer sent is sent back as is.
        var since: JSONValue = startValue ?? 0
        let session = Self.newSessionID()
        var previous = localCheckpoint
        var done = 0
        var total = 0
        var bulkGetWorks = true
        while true {
            let feed = try remote.json(.get, ["_changes"], query: [
                ("feed", "normal"), ("style", "all_docs"), ("since", Self.sequenceText(since)),
                ("limit", String(limits.count)),
            ])
            guard let results = feed["results"]?.arrayValue, let lastSeq = feed["last_seq"] else {
                throw SyncError.protocolError("_changes: no results or last_seq")
            }
            if results.isEmpty { break }
            let pending = Int(feed["pending"]?.intValue ?? 0)
            total = max(total, done + results.count + pending)
            report.examined += results.count

            var asked: [String: [Revision]] = [:]
            for row in results {
                guard let id = row["id"]?.stringValue, let changes = row["changes"]?.arrayValue else {
                    throw SyncError.protocolError("_changes: a row without id or changes")
                }
                // Design documents are not measurements; fprint never stores `_` ids.
                if id.hasPrefix("_") { continue }
                asked[id, default: []] += changes.compactMap { $0["rev"]?.stringValue.flatMap(Revision.init) }
            }
            let missing = try storeCall { try store.revsDiff(asked) }
            // Documents whose every revision is here already (the ones this
            // sync just pushed, say) are examined, not received.
            var wanted: [(id: String, rev: Revision)] = []
            for (id, revs) in missing.sorted(by: { $0.key < $1.key }) { wanted += revs.map { (id, $0) } }

            // Fetched and stored a slice at a time, the next slice fetched
            // while the stage stores this one: two slices are held at most. The checkpoint moves once the whole batch is stored.
            var index = 0
            var received = Set<String>()
            let storing = SerialStage()
            defer { storing.drain() }
            while index < wanted.count {
                let slice = Array(wanted[index..<min(wanted.count, index + min(limits.count, Self.fetchSlice))])
                index += slice.count
                var got: [FetchedRevision]?
                if bulkGetWorks {
                    got = try bulkGet(slice)
                    if got == nil { bulkGetWorks = false }
                }
                if got == nil { got = try openRevs(slice) }
                var fetched: [RevisionContent] = []
                for item in got ?? [] {
                    if case .ok(let content) = item { fetched.append(content) }
                }
                if !dryRun, !fetched.isEmpty {
                    // Ids the protocol reserves are skipped, not fatal.
                    let storable = fetched.filter { !$0.id.hasPrefix("_") }
                    try storing.submit { () throws(SyncError) in
                        try storeCall { try store.putReplicated(storable, markSynced: true) }
                    }
                }
                received.formUnion(fetched.map(\.id))
            }
            try storing.wait()
            report.written += received.count
            done += results.count
            progress(SyncProgress(direction: .pull, done: done, total: max(total, done), transferred: report.written))
            try writeCheckpoint(repID, session: session, startSeq: startValue ?? 0, seq: lastSeq, previous: previous,
                                report: report)
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

    /// `_bulk_get?revs=true&latest=true&attachments=true`; nil when the peer does not offer
    /// it (404/405/406/501: old CouchDB, Sync Gateway refusing JSON).
    func bulkGet(_ wanted: [(id: String, rev: Revision)]) throws(SyncError) -> [FetchedRevision]? {
        let docs = JSONValue.array(wanted.map { ["id": .string($0.id), "rev": .string($0.rev.description)] })
        let response = try remote.send(.post, ["_bulk_get"], query: [("revs", "true"), ("latest", "true"), ("attachments", "true")],
                                       json: ["docs": docs], accept: "application/json, multipart/mixed")
        if [400, 404, 405, 406, 415, 501].contains(response.status) { return nil }
        try remote.require(response, .post, ["_bulk_get"])
        return try BulkGetAnswer.parse(body: response.body, contentType: response.headers["Content-Type"])
    }

    /// The fallback: one `GET /db/id?revs=true&latest=true&open_revs=[…]` per document.
    func openRevs(_ wanted: [(id: String, rev: Revision)]) throws(SyncError) -> [FetchedRevision] {
        var byID: [String: [Revision]] = [:]
        var order: [String] = []
        for (id, rev) in wanted {
            if byID[id] == nil { order.append(id) }
            byID[id, default: []].append(rev)
        }
        var out: [FetchedRevision] = []
        for id in order {
            let list = CanonicalJSON.string(.array(byID[id]!.map { .string($0.description) }))
            let response = try remote.send(.get, [id], query: [("revs", "true"), ("latest", "true"), ("attachments", "true"),
                                                                    ("open_revs", list)],
                                           accept: "application/json, multipart/mixed")
            try remote.require(response, .get, [id])
            out += try BulkGetAnswer.parse(body: response.body, contentType: response.headers["Content-Type"])
        }
        return out
    }
}
