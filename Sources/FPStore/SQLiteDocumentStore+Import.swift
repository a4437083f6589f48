import FPCore
import GRDB

extension SQLiteDocumentStore {
    /// What `insertNew` stored and passed over.
    package struct NewDocumentCount: Sendable, Equatable {
        package var inserted: Int
        /// Ids stored before, or met earlier in the same run.
        package var alreadyPresent: Int
    }

    /// Stores the documents `next` hands over, batch by batch, until it
    /// answers nil: all in one transaction, or none when anything throws.
    /// An id stored already (live or deleted) or met earlier in the run is
    /// passed over. Each batch is prepared (canonical text, revision hash,
    /// compression) on every core as it comes, so only one batch of bodies
    /// is held at a time, not a whole file's (`fprint import`). An error of
    /// `next` is thrown as it is.
    ///
    /// The transaction runs with an 8 MiB page cache, and the WAL is synced
    /// on another thread after each batch. With SQLite's 2 MiB, the pages
    /// written again and again (the tables' and indexes' inner pages) were
    /// spilled to the WAL and then overwritten there, and the commit rewrote
    /// the header of every frame after the first one overwritten: for 2,000
    /// walk documents, 2,600 scattered writes, and the commit's fsync took
    /// 70–90 ms. Now only pages written once are spilled, the commit writes
    /// what the cache holds, and its fsync took 23–29 ms.
    package func insertNew(_ next: () throws -> [NewDocument]?) throws -> NewDocumentCount {
        var producerError: (any Error)?
        do {
            return try write { db in
                var count = NewDocumentCount(inserted: 0, alreadyPresent: 0)
                var seen = Set<String>()
                let exists = try db.cachedStatement(sql: "SELECT 1 FROM documents WHERE id = ?")
                let writeback = WALWriteback(databasePath: writer.path)
                let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0
                try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB)")
                // Not after a write SQLite rolled back (GRDB then takes no statement): only a larger cache stays.
                defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
                while true {
                    let batch: [NewDocument]
                    do {
                        guard let produced = try next() else { break }
                        batch = produced
                    } catch {
                        producerError = error
                        throw error
                    }
                    var fresh: [NewDocument] = []
                    for document in batch {
                        if seen.insert(document.id).inserted, try Bool.fetchOne(exists, arguments: [document.id]) == nil {
                            try Self.validate(document)
                            fresh.append(document)
                        } else {
                            count.alreadyPresent += 1
                        }
                    }
                    let pending = Self.pendingFirstRevisions(fresh)
                    _ = try Self.insertPending(db, pending)
                    for document in fresh where document.hasAttachments {
                        try Self.storeAttachments(db, id: document.id, body: document.body, data: document.attachmentData)
                    }
                    count.inserted += fresh.count
                    writeback.start()
                }
                return count
            }
        } catch {
            if let producerError { throw producerError }
            throw error
        }
    }

    /// The page cache of `insertNew`'s transaction; the connection's own
    /// comes back after it.
    static let importCacheKiB = 8192

    /// Each document's first revision, prepared on every core a group at a
    /// time: the group's texts are hashed side by side (`Revision.firsts`),
    /// then each is compressed.
    static func pendingFirstRevisions(_ documents: [NewDocument]) -> [PendingRevision] {
        let size = Revision.hashedTogether
        let groups = stride(from: 0, to: documents.count, by: size).map { Array(documents[$0..<min($0 + size, documents.count)]) }
        return concurrentMap(groups) { group in
            let texts = group.compactMap { document -> [UInt8]? in
                if case .canonicalText(let text, _) = document.content { return text }
                return nil
            }
            var revisions = Revision.firsts(canonicalBodies: texts)[...]
            return group.map { document in
                guard case .canonicalText(let text, let members) = document.content else { return PendingRevision(document) }
                return PendingRevision(id: document.id, canonicalText: text, members: members, parent: nil,
                                       rev: revisions.removeFirst(), stored: StoredBody.compress(text))
            }
        }.flatMap { $0 }
    }
}
