import FPCore
import Foundation
import GRDB

/// What `fprint check` found.
package struct StoreCheckReport: Sendable, Equatable {
    package var documents = 0
    /// Revisions whose body was read back, decompressed and parsed.
    package var bodies = 0
    /// Damaged bodies and broken revision-tree rows, one entry per revision.
    package var damaged: [DamagedDocument] = []
    /// SQLite's own integrity and foreign-key findings.
    package var sqlite: [String] = []
    /// The counts `status` reads, when they disagree with the documents.
    package var counts: String?
    package var isSound: Bool { damaged.isEmpty && sqlite.isEmpty && counts == nil }
}

extension SQLiteDocumentStore {
    /// Reads back every stored body (decompress, checksum, JSON) and checks
    /// the revision tree and SQLite's integrity. `progress(done, total)`
    /// is called every few hundred bodies.
    package func check(progress: (Int, Int) -> Void = { _, _ in }) throws -> StoreCheckReport {
        var report = StoreCheckReport()
        do {
            report.sqlite = try integrityCheck()
        } catch let error as StoreError {
            // A badly damaged page can stop SQLite's own check; ours goes on.
            report.sqlite = ["SQLite's integrity check stopped: \(error.description)"]
        }
        try readPastDamage { db in
            // Counting and the tree's rules read through indexes: a damaged
            // page there is a finding, and the bodies are still read back.
            let counting = try Self.stoppedByDamage("counting the documents") {
                let counted = try DocumentCounts.counted(db)
                report.documents = counted.total
                report.counts = try Self.countsProblem(db, counted: counted)
            }
            let tree = try Self.stoppedByDamage("checking the revision tree") {
                report.damaged += try Self.treeProblems(db)
            }
            report.sqlite += counting + tree
            // Keys first (the primary-key index), then each body by key: a
            // damaged page fails one lookup, not the whole walk.
            let keys = try Row.fetchAll(db, sql: "SELECT doc_id, rev FROM revisions ORDER BY doc_id, rev")
            if !counting.isEmpty {
                // Not counted: the documents the revisions belong to.
                report.documents = Set(keys.map { $0[0] as String }).count
            }
            let statement = try db.cachedStatement(sql: "SELECT body FROM revisions WHERE doc_id = ? AND rev = ?")
            for (index, key) in keys.enumerated() {
                let id: String = key[0]
                let rev: String = key[1]
                do {
                    let value = try Self.readingDamage(id: id, rev: rev) {
                        try DatabaseValue.fetchOne(statement, arguments: [id, rev]) ?? .null
                    }
                    if let text = try StoredBody.text(value, id: id, rev: rev) {
                        do { _ = try CanonicalJSON.parse(text) } catch {
                            throw DamagedDocument(id: id, rev: rev, reason: "it is not valid JSON (\(error))")
                        }
                        report.bodies += 1
                    }
                } catch let damaged as DamagedDocument {
                    report.damaged.append(damaged)
                }
                if index % 500 == 499 { progress(index + 1, keys.count) }
            }
            progress(keys.count, keys.count)
        }
        return report
    }

    /// Runs `step`; a damaged page (SQLITE_CORRUPT) in what it reads is
    /// answered as a finding (none when it ran through) instead of ending
    /// the whole check.
    static func stoppedByDamage(_ step: String, _ body: () throws -> Void) throws -> [String] {
        do {
            try body()
            return []
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            return ["\(step) stopped at a damaged page: \(error.message ?? "database disk image is malformed")"]
        }
    }

    /// Rows that break the revision tree's rules: a winner that is not a
    /// stored revision, a leaf without its body, a generation that does not
    /// follow its parent's, a revision id that does not parse.
    static func treeProblems(_ db: Database) throws -> [DamagedDocument] {
        var out: [DamagedDocument] = []
        for row in try Row.fetchAll(db, sql: """
            SELECT d.id, d.rev FROM documents d
            WHERE NOT EXISTS (SELECT 1 FROM revisions r WHERE r.doc_id = d.id AND r.rev = d.rev)
            """) {
            out.append(DamagedDocument(id: row[0], rev: row[1], reason: "its winning revision is not in the revision tree"))
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT r.doc_id, r.rev FROM revisions r
            WHERE r.body IS NULL AND NOT EXISTS (
                SELECT 1 FROM revisions c WHERE c.doc_id = r.doc_id AND c.parent_rev = r.rev)
            """) {
            out.append(DamagedDocument(id: row[0], rev: row[1], reason: "it is a leaf of the revision tree without a body"))
        }
        for row in try Row.fetchAll(db, sql: """
            SELECT r.doc_id, r.rev FROM revisions r JOIN revisions p ON p.doc_id = r.doc_id AND p.rev = r.parent_rev
            WHERE r.generation != p.generation + 1
            """) {
            out.append(DamagedDocument(id: row[0], rev: row[1], reason: "its generation does not follow its parent's"))
        }
        for row in try Row.fetchAll(db, sql: "SELECT doc_id, rev, generation FROM revisions") {
            let rev: String = row[1]
            let generation: Int = row[2]
            if Revision(rev)?.generation != generation {
                out.append(DamagedDocument(id: row[0], rev: rev, reason: "its revision id is malformed or disagrees with its generation"))
            }
        }
        return out
    }

    /// Moves every revision of each named document out of the live tables into
    /// `quarantine` (raw bytes kept), one document per transaction. The
    /// documents then no longer exist locally and no tombstone is replicated.
    /// Returns the ids moved.
    @discardableResult
    package func quarantine(_ damaged: [DamagedDocument]) throws -> [String] {
        var moved: [String] = []
        let reasons = Dictionary(damaged.map { ($0.id, $0.description) }, uniquingKeysWith: { a, b in a + "; " + b })
        let now = ISOTime.string(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
        for id in reasons.keys.sorted() {
            try write { db in
                let revs = try Row.fetchAll(db, sql: "SELECT rev, parent_rev, generation, deleted FROM revisions WHERE doc_id = ?",
                                            arguments: [id])
                for row in revs {
                    let rev: String = row[0]
                    // The raw bytes, or NULL when the page under them cannot be read.
                    let raw = try? DatabaseValue.fetchOne(
                        db, sql: "SELECT body FROM revisions WHERE doc_id = ? AND rev = ?", arguments: [id, rev])
                    try db.execute(sql: """
                        INSERT INTO quarantine (doc_id, rev, parent_rev, generation, deleted, raw_body, reason, quarantined_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [id, rev, row[1], row[2], row[3], raw ?? .null, reasons[id] ?? "damaged", now])
                }
                // Revisions before their document (their key points at it).
                try db.execute(sql: "DELETE FROM revisions WHERE doc_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM changes WHERE doc_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM documents WHERE id = ?", arguments: [id])
            }
            moved.append(id)
        }
        return moved
    }

    /// Puts back the body of a damaged revision from a peer's copy. The
    /// revision keeps its id and place in the tree; nothing is replicated anew.
    package func restoreBody(_ content: RevisionContent) throws {
        let canonical = CanonicalJSON.bytes(content.body)
        let stored = StoredBody.compress(canonical)
        let summary = Summary(body: content.body)
        try write { db in
            try db.execute(sql: "UPDATE revisions SET body = ? WHERE doc_id = ? AND rev = ?",
                           arguments: [stored, content.id, content.rev.description])
            guard db.changesCount == 1 else { throw StoreError.notFound(id: "\(content.id) \(content.rev)") }
            try db.execute(sql: "UPDATE documents SET \(Summary.columnAssignments) WHERE id = ? AND rev = ?",
                           arguments: summary.columnValues + [content.id, content.rev.description])
        }
    }

    /// Rows of `quarantine`: (document id, revision, reason).
    package func quarantined() throws -> [(id: String, rev: String, reason: String)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT doc_id, rev, reason FROM quarantine ORDER BY id").map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// Proves the store can take a write before minutes of recording depend
    /// on it: a probe document goes through the whole insert path (every
    /// table and index a measurement touches) and is rolled back.
    package func checkWritable() throws {
        let probe = PendingRevision(id: "fprint-write-check", body: ["probe": true], parent: nil)
        try guarded {
            try writer.writeWithoutTransaction { db in
                try db.inTransaction {
                    _ = try Self.insertPending(db, [probe])
                    return .rollback
                }
            }
        }
    }
}
