import Foundation
import Testing

/// Plain blocking TCP sockets to a loopback gateway: what an attacker or a
/// slow client does byte by byte, which an HTTP library would not let us do.
struct RawConnection {
    let fd: Int32

    /// Connects to the gateway on loopback; `from` picks the client's own
    /// loopback address (127.0.0.2 …), as another host on the network would be.
    init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError("socket: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let error = errno
                Glibc.close(fd)
                throw RawHTTPError("bind \(source): errno \(error)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            Glibc.close(fd)
            throw RawHTTPError("connect: errno \(error)")
        }
    }

    /// Sends everything; false once the peer has closed.
    @discardableResult
    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { send($0) } }

    /// Reads until the peer closes or `timeout` passes; returns what arrived.
    func readAll(timeout: TimeInterval, stopAfterHeaders: Bool = false) -> String {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
            if stopAfterHeaders, String(decoding: data, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The status code of an answer's first line.
    static func status(_ answer: String) -> Int? {
        let parts = answer.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") ? Int(parts[1]) : nil
    }

    func close() { Glibc.close(fd) }
}

struct RawHTTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Linux process figures from /proc.
enum ProcStatus {
    /// Peak resident memory (VmHWM) in MB.
    static func peakRSSMB(_ pid: Int32) -> Double? { field(pid, "VmHWM:").map { $0 / 1024 } }
    static func rssMB(_ pid: Int32) -> Double? { field(pid, "VmRSS:").map { $0 / 1024 } }

    private static func field(_ pid: Int32, _ name: String) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            return Double(line.dropFirst(name.count).trimmingCharacters(in: .whitespaces).split(separator: " ")[0])
        }
        return nil
    }

    /// User + system CPU seconds used so far.
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Raises this process's open-file limit to the hard limit.
    static func raiseOpenFiles() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
