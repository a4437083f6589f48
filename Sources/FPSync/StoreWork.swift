import FPCore

/// Runs store work (GRDB blocks: SQLite, the write lock, zstd) through
/// `BlockingWork`, so no thread of Swift's cooperative pool waits on the
/// database. Each call gets a serial queue of its own: calls never wait for
/// each other here (the push reads its next batch while the upload marks the
/// last one synced; SQLite's WAL lets them, and GRDB serialises writes
/// itself). A dispatch thread, not a `Thread`: the store's `concurrentMap`
/// calls `concurrentPerform`, which libdispatch on Linux only supports from
/// threads it made.
///
/// Errors become `SyncError.store` (a `SyncError` thrown by `body` passes as is).
func storeWork<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws(SyncError) -> T {
    try await BlockingWork.run("fprint.sync.store") { () throws(SyncError) -> T in
        do {
            return try body()
        } catch let error as SyncError {
            throw error
        } catch let error as StoreError {
            throw .store(error.description)
        } catch {
            throw .store("\(error)")
        }
    }
}
