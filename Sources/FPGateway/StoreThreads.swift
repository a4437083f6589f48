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

/// Rows of a streamed answer (`_bulk_get`, `open_revs`, `_changes`,
/// `_all_docs`) made off the cooperative pool, a batch per hop: at most
/// `maxRows` pieces, or fewer once a batch holds `maxBytes` (documents can
/// be megabytes), so memory stays bounded while the connection drains.
enum RowBatch {
    static let maxRows = 100
    static let maxBytes = 1 << 20
    /// A batch this large is held within the shared body budget.
    static let budgetFloor = JSONChunkWriter.chunkSize
    /// Budget bytes per byte held: the batch, and its copy on its way out.
    static let weight = 2

    /// The pieces `step` makes from `cursor` on, handed to `emit` in order,
    /// until `step` returns nil. A step makes at most one revision: a batch
    /// stops past `maxBytes`, so an answer holds about one large document at
    /// a time. With a budget, a large batch is held within it until the
    /// connection has taken it; one that does not fit is let go and made
    /// again once there is room, so an answer that waits holds nothing.
    static func run<Cursor: Sendable>(from start: Cursor, budget: BodyBudget?,
                                      _ step: @escaping @Sendable (inout Cursor) throws -> [UInt8]?,
                                      emit: ([UInt8]) async throws -> Void) async throws {
        let held = budget.map { BodyReservation(budget: $0, weight: weight) }
        defer { held?.release() }
        var cursor = start
        while true {
            var batch = try await make(from: cursor, step)
            if let held, batch.bytes >= budgetFloor, (try? held.grow(to: batch.bytes)) == nil {
                let bytes = batch.bytes
                batch = Batch(next: cursor)
                try await held.growWaiting(to: bytes)
                batch = try await make(from: cursor, step)
            }
            for piece in batch.pieces { try await emit(piece) }
            held?.giveBack()
            guard !batch.ended else { return }
            cursor = batch.next
        }
    }

    private struct Batch<Cursor: Sendable>: Sendable {
        var pieces: [[UInt8]] = []
        var bytes = 0
        var next: Cursor
        var ended = false
    }

    private static func make<Cursor: Sendable>(from cursor: Cursor,
                                               _ step: @escaping @Sendable (inout Cursor) throws -> [UInt8]?) async throws
        -> Batch<Cursor> {
        try await BlockingWork.run("fprint.gateway.rows") { () throws -> Batch<Cursor> in
            var batch = Batch(next: cursor)
            while batch.pieces.count < maxRows, batch.bytes < maxBytes {
                guard let piece = try step(&batch.next) else {
                    batch.ended = true
                    break
                }
                batch.bytes += piece.count
                batch.pieces.append(piece)
            }
            return batch
        }
    }

    /// Every item's row, made batch by batch, handed to `emit` in order with the item's index.
    static func forEach<Item: Sendable>(_ items: [Item], budget: BodyBudget? = nil,
                                        _ makeRow: @escaping @Sendable (Item) throws -> [UInt8],
                                        emit: (Int, [UInt8]) async throws -> Void) async throws {
        var index = 0
        try await run(from: 0, budget: budget, { next in
            guard next < items.count else { return nil }
            defer { next += 1 }
            return try makeRow(items[next])
        }) { row in
            try await emit(index, row)
            index += 1
        }
    }
}

extension JSONChunkWriter {
    /// `items` as rows joined by commas, made in `RowBatch`es.
    mutating func appendRows<Item: Sendable>(_ items: [Item], budget: BodyBudget? = nil,
                                             _ makeRow: @escaping @Sendable (Item) throws -> [UInt8]) async throws {
        try await RowBatch.forEach(items, budget: budget, makeRow) { index, row in
            if index > 0 { try await append(",") }
            try await append(row)
        }
    }
}
