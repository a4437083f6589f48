@testable import FPStore
import FPTestSupport

/// A store whose disk is full from now on: one measurement is stored first
/// (so the database exists), then every insert fails but the write check's
/// probe, as when the disk fills while a walk is recorded.
func storeThatFillsUp(_ fp: FprintRunner) async throws -> Bool {
    let first = try await fp.run(["measure", "--map", "J1NP", "--x", "1", "--y", "1", "--simulate", "--fast", "--duration", "5"])
    let store = try SQLiteDocumentStore(path: fp.db)
    _ = try store.rawSQL("""
        CREATE TRIGGER full BEFORE INSERT ON documents WHEN NEW.id != 'fprint-write-check'
        BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END
        """)
    try store.close()
    return first.status == 0
}
