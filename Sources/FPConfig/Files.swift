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
        let target = URL(fileURLWithPath: path)
        let directory = target.deletingLastPathComponent().path
        let temp = "\(directory)/.\(target.lastPathComponent).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"
        var madeDirectory = false
        do {
            do {
                try writeNew(data, to: temp, permissions: permissions, durable: durable)
            } catch Errno.noSuchFileOrDirectory {
                madeDirectory = true
                // The directory is made only when missing: asking FileManager
                // every time cost a no-op `sync` ~0.15 ms.
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw ConfigError(source: path, "cannot create directory \(directory)")
                }
                try writeNew(data, to: temp, permissions: permissions, durable: durable)
            }
            guard rename(temp, path) == 0 else {
                let failure = Errno(rawValue: errno)
                unlink(temp)
                throw failure
            }
            if durable {
                if madeDirectory { DirectorySync.sync(containing: directory) }
                let failed = DirectorySync.sync(directory: directory)
                guard failed == 0 else { throw Errno(rawValue: failed) }
            }
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(source: path, "cannot write: \(error)")
        }
    }

    /// Creates `path` (it must not exist) with `permissions` before a byte is
    /// written, writes `data` whole and fsyncs it (unless not `durable`); on
    /// failure nothing is left.
    package static func writeNew(_ data: Data, to path: String, permissions: mode_t, durable: Bool = true) throws {
        let fd = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
                                         permissions: FilePermissions(rawValue: permissions))
        do {
            try fd.closeAfter {
                try data.withUnsafeBytes { try writeWhole($0, to: fd) }
                guard !durable || fsync(fd.rawValue) == 0 else { throw Errno(rawValue: errno) }
            }
        } catch {
            unlink(path)
            throw error
        }
    }

    /// `write(2)` until every byte is out. SystemPackage's `writeAll` is
    /// generic over the bytes' sequence, and its first use in a process
    /// builds that type at run time (a scan of the binary's ~9,900 protocol
    /// conformances, ~0.3 ms of a no-op `sync`).
    private static func writeWhole(_ bytes: UnsafeRawBufferPointer, to fd: FileDescriptor) throws {
        var offset = 0
        while offset < bytes.count {
            let written = try fd.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            guard written > 0 else { throw Errno.ioError }
            offset += written
        }
    }
}
