import FPCore
import Foundation
import SystemPackage

/// Small file helpers with one-line `ConfigError`s naming the file.
package enum Files {
    package static func read(_ path: String) throws(ConfigError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigError(source: path, "no such file")
        }
        if isDirectory.boolValue { throw ConfigError(source: path, "is a directory, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(source: path, "cannot be read (\(Errno.permissionDenied))")
        }
        return data
    }

    /// Writes through a temporary file in the same directory and `rename(2)`,
    /// so readers (and a crash) see the old content or the new, never a torn
    /// file. Creates missing directories. Durable (the default): the file is
    /// fsynced before the rename and its directory after it (and a directory
    /// made for it, in its parent), so what returned survives a power cut.
    /// `durable: false` skips both, for notes whose loss costs nothing.
    package static func writeAtomically(_ data: Data, to path: String, permissions: mode_t = 0o644,
                                        durable: Bool = true) throws(ConfigError) {
        let replace = { () throws(DurableReplace.Failure) in
            try DurableReplace.replace(path, with: data, permissions: permissions, durable: durable)
        }
        do {
            try replace()
        } catch let failure where failure.isMissingFolder {
            // The directory is made only when missing: asking FileManager
            // every time cost a no-op `sync` ~0.15 ms.
            let directory = DirectorySync.parent(of: path)
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw ConfigError(source: path, "cannot create directory \(directory)")
            }
            do { try replace() } catch { throw ConfigError(source: path, "cannot write: \(error.reason)") }
            // The new folder's own name must be durable too.
            if durable { DirectorySync.sync(containing: directory) }
        } catch {
            throw ConfigError(source: path, "cannot write: \(error.reason)")
        }
    }

    /// Creates `path` (it must not exist) with `permissions` before a byte is
    /// written, writes `data` whole and fsyncs it (unless not `durable`); on
    /// failure nothing is left.
    package static func writeNew(_ data: Data, to path: String, permissions: mode_t, durable: Bool = true) throws {
        try DurableReplace.writeNew(path, data, permissions: permissions, durable: durable)
    }
}
