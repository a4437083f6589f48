import FPCore
import Foundation
import GRDB

/// What `fprint maintenance` did.
package struct MaintenanceReport: Sendable, Equatable {
    package var recompressed = 0
    /// Attachment rows no body names any more, dropped, and their stored bytes.
    package var attachmentsDropped = 0
    package var attachmentBytesDropped: Int64 = 0
    package var pageSizeBefore = 0
    package var pageSizeAfter = 0
    package var bytesBefore: Int64 = 0
    package var bytesAfter: Int64 = 0
    /// False when `shouldStop` ended it early (everything done so far is kept).
    package var finished = true
}

extension SQLiteDocumentStore {
    /// Compacts an older database in steps that are each one transaction, so
    /// an interruption (Ctrl-C, SIGKILL, power) keeps every finished step and
    /// loses nothing: pre-v4 text bodies become zstd frames in batches,
    /// attachment bytes no body names any more are dropped, then VACUUM
    /// rebuilds the file, moving pages smaller than the current
    /// default up to it. `shouldStop` is asked between steps.
    package static func maintain(path: String, progress: (String) -> Void,
                                shouldStop: () -> Bool = { false }) throws -> MaintenanceReport {
        // Opened and migrated as usual, then closed: the steps below need the
        // only connection (changing the page size leaves WAL mode for a while).
        let store = try SQLiteDocumentStore(path: path, access: .readWrite(createFolders: false))
        var report = MaintenanceReport()
        report.bytesBefore = fileBytes(path)
        report.recompressed = try store.recompressTextBodies(progress: progress, shouldStop: shouldStop)
        (report.attachmentsDropped, report.attachmentBytesDropped) = try store.dropUnreferencedAttachments(shouldStop: shouldStop)
        if report.attachmentsDropped > 0 {
            progress("dropped \(report.attachmentsDropped) attachment(s) no revision names any more")
        }
        let wal = store.openNote == nil
        try store.close()
        if shouldStop() {
            report.finished = false
            return report
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: makeConfiguration())
            try queue.writeWithoutTransaction { db in
                report.pageSizeBefore = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                let target = max(report.pageSizeBefore, Schema.newPageSize)
                progress(report.pageSizeBefore < target
                         ? "rebuilding the file with \(target / 1024) KB pages (was \(report.pageSizeBefore / 1024) KB)"
                         : "rebuilding the file (VACUUM)")
                // A WAL file keeps its page size; the rollback journal lets VACUUM change it.
                try db.execute(sql: "PRAGMA journal_mode = DELETE")
                try db.execute(sql: "PRAGMA page_size = \(target)")
                try db.execute(sql: "VACUUM")
                if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
                report.pageSizeAfter = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            }
        } catch {
            throw translate(error)
        }
        report.bytesAfter = fileBytes(path)
        return report
    }

    /// Rewrites rows stored as text before v4 as zstd frames, 200 per transaction.
    func recompressTextBodies(progress: (String) -> Void, shouldStop: () -> Bool) throws -> Int {
        let total = try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM revisions WHERE typeof(body) = 'text'") ?? 0
        }
        guard total > 0 else { return 0 }
        var done = 0
        while done < total, !shouldStop() {
            let batch = try write { db -> Int in
                let rows = try Row.fetchAll(db, sql: """
                    SELECT rowid, body FROM revisions WHERE typeof(body) = 'text' LIMIT 200
                    """)
                for row in rows {
                    let text: String = row[1]
                    try db.execute(sql: "UPDATE revisions SET body = ? WHERE rowid = ?",
                                   arguments: [StoredBody.compress(Array(text.utf8)), row[0] as Int64])
                }
                return rows.count
            }
            if batch == 0 { break }
            done += batch
            progress("recompressed \(done) of \(total) text bodies")
        }
        return done
    }

    /// Closes every connection now, rather than whenever the last copy of
    /// the store goes, after moving the write-ahead log into the file: the
    /// file alone then holds every commit, and the next process to open it
    /// inherits no log to checkpoint (a sync with nothing to move would
    /// otherwise write the last one's log into the file). A pool's last
    /// connection to close is a reader, which may not checkpoint: the pool
    /// checkpoints first; a queue's one connection does it as it closes.
    package func close() throws {
        try guarded {
            if writer is DatabasePool, !writer.configuration.readonly {
                try writer.writeWithoutTransaction { db in
                    if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" { try db.checkpoint(.truncate) }
                }
            }
            try writer.close()
        }
    }

    static func fileBytes(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
