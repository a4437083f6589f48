import Dispatch
import FPCore

/// Runs store work (GRDB blocks: SQLite, the write lock, zstd) on a dispatch
/// thread and suspends the caller until it returns, so no thread of Swift's
/// cooperative pool waits on the database.
///
/// Each call gets a serial queue of its own: calls never wait for each
/// other here (the push reads its next batch while the upload marks the last
/// one synced; SQLite's WAL lets them, and GRDB serialises writes itself),
/// and serial queues run on libdispatch's overcommit threads, which are
/// added when others block. A dispatch thread, not a `Thread`: the store's
/// `concurrentMap` calls `concurrentPerform`, which libdispatch on Linux
/// only supports from threads it made.
///
/// Errors become `SyncError.store` (a `SyncError` thrown by `body` passes as is).
func storeWork<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws(SyncError) -> T {
    let result: Result<T, SyncError> = await withCheckedContinuation { continuation in
        DispatchQueue(label: "fprint.sync.store").async {
            do {
                continuation.resume(returning: .success(try body()))
            } catch let error as SyncError {
                continuation.resume(returning: .failure(error))
            } catch let error as StoreError {
                continuation.resume(returning: .failure(.store(error.description)))
            } catch {
                continuation.resume(returning: .failure(.store("\(error)")))
            }
        }
    }
    return try result.get()
}
