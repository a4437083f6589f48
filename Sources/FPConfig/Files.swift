import Foundation

/// Small file helpers with one-line `ConfigError`s naming the file.
enum Files {
    static func read(_ path: String) throws(ConfigError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigError(source: path, "no such file")
        }
        if isDirectory.boolValue { throw ConfigError(source: path, "is a directory, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(source: path, "cannot be read (\(String(cString: strerror(EACCES))))")
        }
        return data
    }

    /// Writes through a temporary file in the same directory and `rename(2)`,
    /// so readers (and a crash) see the old content or the new, never a torn
    /// file. Creates missing directories.
    static func writeAtomically(_ data: Data, to path: String, permissions: mode_t = 0o644) throws(ConfigError) {
        let target = URL(fileURLWithPath: path)
        let directory = target.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ConfigError(source: path, "cannot create directory \(directory)")
        }
        let temp = "\(directory)/.\(target.lastPathComponent).\(getpid()).\(UInt32.random(in: .min ... .max)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw ConfigError(source: path, "cannot write: \(String(cString: strerror(errno)))") }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = Foundation.write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        if failure == 0, fsync(fd) != 0 { failure = errno }
        close(fd)
        if failure == 0, rename(temp, path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temp)
            throw ConfigError(source: path, "cannot write: \(String(cString: strerror(failure)))")
        }
    }
}
