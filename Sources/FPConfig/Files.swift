import FPCore
import Glibc
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

    /// Writes `data` over `path` in place (the same file, never a new one),
    /// creating it and its directory when missing. Not atomic: a reader
    /// racing the write, or a power cut during it, may find it torn, so only
    /// for notes that carry their own check. Replacing a file frees the old
    /// one's blocks, and where the filesystem is mounted with `discard` the
    /// freeing waits for the disk (~1 ms of every no-op `sync` here).
    package static func overwrite(_ data: Data, at path: String, permissions: mode_t) throws(ConfigError) {
        var fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, permissions)
        if fd < 0 && errno == ENOENT {
            let directory = DirectorySync.parent(of: path)
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, permissions)
        }
        guard fd >= 0 else { throw ConfigError(source: path, "cannot write: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let failed = data.withUnsafeBytes { bytes -> Int32? in
            // From the start (just opened); a shorter text than before: cut the rest (within the file's one block, nothing is freed).
            if let failed = DurableReplace.writeAll(fd, bytes) { return failed }
            return ftruncate(fd, off_t(bytes.count)) == 0 && fchmod(fd, permissions) == 0 ? nil : errno
        }
        if let failed { throw ConfigError(source: path, "cannot write: \(String(cString: strerror(failed)))") }
    }

    /// Creates `path` (it must not exist) with `permissions` before a byte is
    /// written, writes `data` whole and fsyncs it (unless not `durable`); on
    /// failure nothing is left.
    package static func writeNew(_ data: Data, to path: String, permissions: mode_t, durable: Bool = true) throws {
        try DurableReplace.writeNew(path, data, permissions: permissions, durable: durable)
    }
}
