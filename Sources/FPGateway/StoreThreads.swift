import FPCore

/// Where the gateway's store work runs, and why not on Swift's cooperative pool.
///
/// The store's calls block their thread: a write waits for SQLite's one write
/// lock (up to the busy timeout) and for its fsync, a read of a large body
/// waits for the disk. The cooperative pool has one thread per core (two on
/// the survey laptops and this VM) and serves every connection, so two writes
/// waiting for the lock used to stall every other request, even reads the WAL
/// answers at once. Each request's store work therefore runs in one hop on a
/// dispatch thread (`BlockingWork`), which the handler awaits.
///
/// One hop per request (or per batch of streamed rows), not per store call:
/// a `_bulk_get` entry reads leaves, then texts, then attachments, and an
/// earlier try that hopped for every call made pulls about a quarter slower.
func onStoreThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingWork.run("fprint.gateway.store", work)
}

/// Rows of a streamed answer (`_bulk_get`, `_changes`, `_all_docs`) made off
/// the cooperative pool, a batch per hop: at most `maxRows` rows, or fewer
/// once a batch holds `maxBytes` (documents can be megabytes), so memory
/// stays bounded while the connection drains.
enum RowBatch {
    static let maxRows = 100
    static let maxBytes = 1 << 20

    /// The rows of `items` from `start` on, and the index after the last one made.
    private static func make<Item: Sendable>(_ items: [Item], from start: Int,
                                     _ makeRow: @escaping @Sendable (Item) throws -> [UInt8]) async throws
        -> (rows: [[UInt8]], next: Int) {
        try await BlockingWork.run("fprint.gateway.rows") { () throws -> ([[UInt8]], Int) in
            var rows: [[UInt8]] = []
            var bytes = 0
            var index = start
            while index < items.count, rows.count < maxRows, bytes < maxBytes {
                let row = try makeRow(items[index])
                bytes += row.count
                rows.append(row)
                index += 1
            }
            return (rows, index)
        }
    }

    /// Every item's row, made batch by batch, handed to `emit` in order with the item's index.
    static func forEach<Item: Sendable>(_ items: [Item], _ makeRow: @escaping @Sendable (Item) throws -> [UInt8],
                                        emit: (Int, [UInt8]) async throws -> Void) async throws {
        var next = 0
        while next < items.count {
            let batch = try await make(items, from: next, makeRow)
            for (offset, row) in batch.rows.enumerated() { try await emit(next + offset, row) }
            next = batch.next
        }
    }
}

extension JSONChunkWriter {
    /// `items` as rows joined by commas, made in `RowBatch`es.
    mutating func appendRows<Item: Sendable>(_ items: [Item],
                                             _ makeRow: @escaping @Sendable (Item) throws -> [UInt8]) async throws {
        try await RowBatch.forEach(items, makeRow) { index, row in
            if index > 0 { try await append(",") }
            try await append(row)
        }
    }
}
