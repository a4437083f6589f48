import FPConfig
import FPCore
import FPStore
import Foundation

/// What the last `fprint sync` of a database did, for `fprint status`.
///
/// Kept outside the database, in `<state>/last-sync/<database uuid>.json`, so
/// that a sync that moves nothing writes nothing to the store: no commit, no
/// fsync, no checkpoint at close. A note, not data: written atomically but
/// without fsync (a power cut may take back the newest). Databases synced by
/// an older fprint keep their `_local/fprint-last-sync` document, which is
/// read until a sync writes the note.
struct LastSyncNote {
    static let legacyLocalID = "fprint-last-sync"

    let path: String

    init(paths: FPPaths, databaseUUID: String) {
        path = "\(paths.stateDirectory)/last-sync/\(databaseUUID).json"
    }

    init(paths: FPPaths, store: SQLiteDocumentStore) throws {
        self.init(paths: paths, databaseUUID: try store.databaseUUID())
    }

    /// `{time, gateway, sent, received, refused}`; written whole or not at all.
    func write(gateway: String, sent: Int, received: Int, refused: Int, at date: Date = Date()) throws {
        let note: JSONValue = [
            "time": .string(ISOTime.string(millisecondsSince1970: Int64(date.timeIntervalSince1970 * 1000))),
            "gateway": .string(gateway),
            "sent": .int(Int64(sent)), "received": .int(Int64(received)), "refused": .int(Int64(refused)),
        ]
        try Files.writeAtomically(Data(CanonicalJSON.string(note).utf8), to: path, permissions: 0o600, durable: false)
    }

    /// The note, else the store's older `_local` record, else nil (never synced).
    /// An unreadable note is reported as nil with a warning: it only informs.
    func read(fallback store: SQLiteDocumentStore) throws -> JSONValue? {
        if FileManager.default.fileExists(atPath: path) {
            do {
                return try CanonicalJSON.parse(Files.read(path))
            } catch {
                Terminal.err("warning: \(path): cannot read the last-sync note (\(error)); ignoring it")
                return nil
            }
        }
        return try store.localDocument(id: Self.legacyLocalID)
    }
}
