import FPCore
import GRDB

extension SQLiteDocumentStore {
    /// Documents with more than one leaf (only those can have conflicts):
    /// one pass over the revision tree's keys and parent index, never a
    /// body, so `list --json` stays fast on large stores. Callers ask
    /// `conflicts(id:)` of these few for the live count.
    package func documentsWithSeveralLeaves() throws -> Set<String> {
        try read { db in
            Set(try String.fetchAll(db.cachedStatement(sql: """
                SELECT r.doc_id FROM revisions r
                WHERE NOT EXISTS (SELECT 1 FROM revisions c WHERE c.doc_id = r.doc_id AND c.parent_rev = r.rev)
                GROUP BY r.doc_id HAVING count(*) > 1
                """)))
        }
    }

    /// The same, among `ids` only: a page of `list --json --limit 100` looks
    /// up its own documents' leaves (one index probe each, two for an edited
    /// document) instead of scanning every revision of a 100,000-document
    /// store. A long list takes the one pass, which is then cheaper than a
    /// probe per document.
    package func documentsWithSeveralLeaves(among ids: [String]) throws -> Set<String> {
        if ids.count > Self.leafProbeLimit { return try documentsWithSeveralLeaves().intersection(ids) }
        return try read { db in
            let revisions = try db.cachedStatement(sql: "SELECT count(*) FROM revisions WHERE doc_id = ?")
            let leaves = try db.cachedStatement(sql: """
                SELECT count(*) FROM revisions r
                WHERE r.doc_id = ? AND NOT EXISTS (SELECT 1 FROM revisions c WHERE c.doc_id = r.doc_id AND c.parent_rev = r.rev)
                """)
            var several = Set<String>()
            for id in ids {
                // One revision is one leaf. Most documents are never edited,
                // and this spares them a read of the parent index's page.
                guard try Int.fetchOne(revisions, arguments: [id]) ?? 0 > 1 else { continue }
                if try Int.fetchOne(leaves, arguments: [id]) ?? 0 > 1 { several.insert(id) }
            }
            return several
        }
    }

    /// Above this many ids, one scan of the revision tree beats a probe per id.
    static let leafProbeLimit = 2_000
}
