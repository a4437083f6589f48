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
}
