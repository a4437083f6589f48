import Foundation

/// A real gpsd fed by gpsfake from an NMEA log, on a free loopback port:
/// what the GNSS tests of the provider and of the commands listen to.
public final class Gpsfake: @unchecked Sendable {
    public let port: UInt16
    private let process = Process()

    /// Starts `gpsfake` (path given) replaying `log`, `cycle` seconds a sentence.
    public init(gpsfake: String, log: String, cycle: String = "0.05") async throws {
        port = try freeTCPPort()
        process.executableURL = URL(fileURLWithPath: gpsfake)
        process.arguments = ["-q", "-P", String(port), "-c", cycle, log]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = (env["PATH"] ?? "") + ":/usr/sbin:/sbin"
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try await process.runWhenDescriptorsAllow()
    }

    /// gpsfake ignores SIGTERM and leaves the gpsd it started running when
    /// killed, so both end by pid: its gpsd is the process whose command line
    /// names gpsfake's socket.
    public func stop() {
        let pid = process.processIdentifier
        let marker = "gpsfake-\(pid).sock"
        let procs = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in procs {
            guard let child = Int32(entry),
                  let cmd = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  String(decoding: cmd, as: UTF8.self).contains(marker)
            else { continue }
            kill(child, SIGKILL)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        // Killed, neither removes its control socket.
        unlink("/tmp/\(marker)")
    }
}

public struct PortError: Error, CustomStringConvertible {
    public let description: String
}

/// A TCP port nobody listens on right now (bound to 0, read back, released).
public func freeTCPPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PortError(description: "socket: errno \(errno)") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
    }
    guard bound else { throw PortError(description: "bind: errno \(errno)") }
    return UInt16(bigEndian: addr.sin_port)
}
