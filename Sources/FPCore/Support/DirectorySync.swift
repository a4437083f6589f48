#if canImport(Glibc)
import Glibc
#endif

/// A `rename(2)` or `link(2)` is durable only once the directory holding
/// the name is fsynced: until then a power cut may bring back the old name
/// (or none) even though the new file's bytes were flushed — ALICE (OSDI
/// '14) found exactly this lost rename in many applications. Call it after
/// the rename and before telling anyone the write is done.
package enum DirectorySync {
    /// fsyncs the directory `directory`; returns errno on failure.
    @discardableResult
    package static func sync(directory: String) -> Int32 {
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        return fsync(fd) == 0 ? 0 : errno
    }

    /// fsyncs the directory holding `path`.
    @discardableResult
    package static func sync(containing path: String) -> Int32 {
        sync(directory: parent(of: path))
    }

    /// The directory part of `path` ("." for a bare name, "/" for a file at the root).
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
