import FPConfig
import FPCore
import FPStore
import Foundation

/// What the last `fprint sync` of a database did, for `fprint status`.
///
/// Kept outside the database, in `<state>/last-sync/<database uuid>.json`, so
/// that a sync that moves nothing writes nothing to the store: no commit, no
/// fsync, no checkpoint at close. A note, not data: rewritten in place
/// without fsync (`Files.overwrite`: replacing it made every sync wait for
/// the disk to discard the old note's block), with `check`, a hash of the
/// rest, so that one read torn (racing a sync, or after a power cut) is
/// known: it is read again once, then ignored. Databases synced by an older
/// fprint keep their `_local/fprint-last-sync` document, which is read until
/// a sync writes the note.
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
        guard case .object(var members) = note else { return }
        members["check"] = .string(Self.check(note))
        try Files.overwrite(Data((CanonicalJSON.string(.object(members)) + "\n").utf8), at: path, permissions: 0o600)
    }

    /// FNV-1a (64 bits) of the note's canonical text without `check`, in hex.
    static func check(_ note: JSONValue) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in CanonicalJSON.string(note).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// The note if it reads whole: JSON, and its `check` (when it has one: older notes have none) agrees.
    private func readWhole() throws -> JSONValue {
        let note = try CanonicalJSON.parse(Files.read(path))
        guard case .object(var members) = note, let check = members.removeValue(forKey: "check") else { return note }
        guard check.stringValue == Self.check(.object(members)) else { throw ConfigError("torn: its check does not agree") }
        return .object(members)
    }

    /// The note, else the store's older `_local` record, else nil (never synced).
    /// An unreadable note is reported as nil with a warning: it only informs.
    func read(fallback store: SQLiteDocumentStore) throws -> JSONValue? {
        if FileManager.default.fileExists(atPath: path) {
            do {
                // A sync rewriting it meanwhile takes microseconds: a torn read is read again once.
                return try (try? readWhole()) ?? readWhole()
            } catch {
                Terminal.err("warning: \(path): cannot read the last-sync note (\(error)); ignoring it")
                return nil
            }
        }
        return try store.localDocument(id: Self.legacyLocalID)
    }
}
