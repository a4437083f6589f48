import Glibc

/// A whole file straight into one array of its size: no Data in between, no
/// array grown by doubling, no zero-filling first (a replay's capture or
/// eval's packed radiomap is tens of MB, held once). A file that grows while
/// read is read to its end.
public enum WholeFile {
    public struct ReadError: Error, CustomStringConvertible {
        /// The system's words for the failure (`No such file or directory`).
        public let description: String
    }

    public static func read(_ path: String) throws(ReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure() }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure() }
        let size = Int(info.st_size)
        var failed: ReadError?
        var out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let n = Glibc.read(fd, buffer.baseAddress! + initialized, size - initialized)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { failed = failure() }
                if n <= 0 { break }
                initialized += n
            }
        }
        if let failed { throw failed }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw failure() }
            if n == 0 { break }
            out.append(contentsOf: chunk[..<n])
        }
        return out
    }

    private static func failure() -> ReadError { ReadError(description: String(cString: strerror(errno))) }
}
