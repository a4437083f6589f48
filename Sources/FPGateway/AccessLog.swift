import FPCore
import Foundation
import Logging

/// One JSON line per request: time, client, user, method, path, status,
/// bytes, ms. The path is logged without its query, and nothing from the
/// headers or body, so tokens and passwords never reach the log.
final class AccessLog: @unchecked Sendable {
    struct Entry {
        var client: String
        var user: String?
        var method: String
        var path: String
        var status = 0
        var bytes = 0
    }

    private var handle: FileHandle
    /// The file it appends to (nil: stderr), opened again on SIGHUP.
    let path: String?
    private let lock = NSLock()

    init(handle: FileHandle) {
        self.handle = handle
        path = nil
    }

    /// Appends to `path`, created 0600 if missing. O_APPEND: every line
    /// lands at the end as it is then, so a log cut by `logrotate`'s
    /// copytruncate starts again at its beginning (not after a hole of
    /// NULs), and two gateways sharing a log never write over each other.
    init(path: String) throws {
        handle = try Self.open(path)
        self.path = path
    }

    private static func open(_ path: String) throws -> FileHandle {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw GatewaySetupError("\(path): cannot open the access log for writing: \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Opens the file at `path` again (logrotate moved the old one away and
    /// sent SIGHUP): lines go to the new file from the next request on. If
    /// it cannot be opened, lines keep going to the old one, and that is said.
    func reopen() throws {
        guard let path else { return }
        let fresh = try Self.open(path)
        lock.withLock { handle = fresh }
    }

    func write(_ entry: Entry, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        var line: JSONValue = [
            "time": .string(ISOTime.string(Date())), "client": .string(entry.client),
            "method": .string(entry.method), "path": .string(entry.path), "status": .int(Int64(entry.status)),
            "bytes": .int(Int64(entry.bytes)), "ms": .double((ms * 10).rounded() / 10),
        ]
        line["user"] = entry.user.map(JSONValue.string) ?? .null
        var bytes = CanonicalJSON.bytes(line)
        bytes.append(0x0A)
        lock.withLock { handle.write(Data(bytes)) }
    }
}
