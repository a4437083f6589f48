import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Replaces a file whole so that readers, a kill and a power cut see either
/// the old content or the new, never a torn or empty file, and — when
/// `durable` — the new content survives a power cut once this returns:
/// write a temporary file beside it, fsync it, `rename(2)` it over the
/// target, fsync the folder (DirectorySync). One implementation for every
/// file fprint keeps outside SQLite (config, credential ledger, notes).
package enum DurableReplace {
    /// The step that failed and its errno; callers word their own message.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package enum Step: String, Sendable { case create, write, flush, rename, flushFolder = "flush folder" }
        package let step: Step
        package let errno: Int32

        package var description: String { "cannot \(step.rawValue): \(reason)" }
        /// The system's words for `errno` alone ("Not a directory").
        package var reason: String { String(cString: strerror(errno)) }
        /// The folder to write in does not exist (the caller may make it and retry).
        package var isMissingFolder: Bool { step == .create && errno == ENOENT }
    }

    /// Replaces `path` with `bytes` (mode `permissions` from the first byte).
    /// The temporary file is a hidden, uniquely named sibling made with
    /// O_EXCL: a stale one left by a killed process never blocks a later
    /// write, and it is removed on every failure here.
    package static func replace(_ path: String, with bytes: UnsafeRawBufferPointer, permissions: mode_t,
                                durable: Bool = true) throws(Failure) {
        let folder = DirectorySync.parent(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let temporary = "\(folder)/.\(name).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"
        try writeNew(temporary, bytes, permissions: permissions, durable: durable)
        guard rename(temporary, path) == 0 else {
            let failed = errno
            unlink(temporary)
            throw Failure(step: .rename, errno: failed)
        }
        if durable {
            let failed = DirectorySync.sync(directory: folder)
            guard failed == 0 else { throw Failure(step: .flushFolder, errno: failed) }
        }
    }

    /// `replace` with the bytes of `data` (Data's `withUnsafeBytes` rethrows untyped errors).
    package static func replace(_ path: String, with data: Data, permissions: mode_t, durable: Bool = true) throws(Failure) {
        var failure: Failure?
        data.withUnsafeBytes { bytes in
            do throws(Failure) { try replace(path, with: bytes, permissions: permissions, durable: durable) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// `writeNew` with the bytes of `data`.
    package static func writeNew(_ path: String, _ data: Data, permissions: mode_t, durable: Bool = true) throws(Failure) {
        var failure: Failure?
        data.withUnsafeBytes { bytes in
            do throws(Failure) { try writeNew(path, bytes, permissions: permissions, durable: durable) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Creates `path` (which must not exist), writes `bytes` whole and, when
    /// `durable`, fsyncs it; on failure nothing is left behind.
    package static func writeNew(_ path: String, _ bytes: UnsafeRawBufferPointer, permissions: mode_t,
                                 durable: Bool = true) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw Failure(step: .create, errno: errno) }
        var failure = writeAll(fd, bytes).map { Failure(step: .write, errno: $0) }
        if failure == nil, durable, fsync(fd) != 0 { failure = Failure(step: .flush, errno: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
    }

    /// Writes `bytes` whole at `fd`'s position (again after EINTR or a short
    /// write); the errno when it cannot, nil when done.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return n < 0 ? errno : EIO }
        }
        return nil
    }
}
