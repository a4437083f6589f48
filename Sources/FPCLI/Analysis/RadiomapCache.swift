import FPAnalysis
import FPCore
import FPStore
import Foundation

/// Eval's radiomap packed beside the database (`<db>-radiomap`,
/// `FingerprintPack`): reading 63,504 imported documents took twice as long
/// as evaluating them. The pack is kept under the store's content stamp
/// (any write to any document changes it), so it is used only while it was
/// made from exactly the documents stored; otherwise they are read and
/// parsed as before, and packed again for the next run: the first eval after
/// an import (or any other change) makes it. A folder that cannot be written
/// just means no pack.
enum RadiomapCache {
    static func path(_ database: String) -> String { database + "-radiomap" }

    /// Every stored fingerprint, in file order.
    static func fingerprints(_ store: SQLiteDocumentStore, database: String) throws -> [Fingerprint] {
        let stored = try store.contentStamp()
        // The binary's version too: a pack holds what this fprint read from the documents.
        let stamp = "fprint \(Fprint.version) pack|" + stored
        if let blob = try? WholeFile.read(path(database)), let fps = FingerprintPack.unpack(blob, stamp: stamp) {
            return fps
        }
        let read = try AnalysisInput.readFingerprints(store, ListQuery())
        // Stamped before and after: a write that landed meanwhile leaves no pack.
        if read.clean, try store.contentStamp() == stored {
            save(read.fingerprints, stamp: stamp, database: database)
        }
        return read.fingerprints
    }

    /// Packs and writes atomically (a temporary file renamed into place); failures are silent: the pack is only a shortcut.
    static func save(_ fps: [Fingerprint], stamp: String, database: String) {
        guard let blob = FingerprintPack.pack(fps, stamp: stamp) else { return }
        try? Data(blob).write(to: URL(fileURLWithPath: path(database)), options: .atomic)
    }
}
