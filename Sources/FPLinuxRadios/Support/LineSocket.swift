#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SystemPackage

/// Why a line socket could not connect, send or read: one line for the status reason.
package struct LineSocketError: Error, CustomStringConvertible {
    package let description: String
    init(description: String) { self.description = description }
    init(_ code: Errno) { description = code.description }
}

/// The failure of the system call just made: the thread's errno now.
private var lastErrno: Errno { Errno(rawValue: errno) }

/// A TCP connection read line by line with timeouts (gpsd's protocol is JSON
/// lines). Blocking calls are bounded by `poll`, so a reader loop can notice
/// cancellation; one owner task uses it at a time.
package final class LineSocket: @unchecked Sendable {
    private var fd: Int32
    private var buffer: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }
    deinit { close() }

    /// Connects to host:port within `timeoutMs`; the error names the cause (refused, timed out, unknown host).
    package static func connect(host: String, port: UInt16, timeoutMs: Int) throws(LineSocketError) -> LineSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw LineSocketError(description: "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        while let a = ai {
            ai = a.pointee.ai_next
            let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), a.pointee.ai_protocol)
            if fd < 0 { lastError = lastErrno.description; continue }
            // Non-blocking connect so an unreachable host costs timeoutMs, not the kernel's minutes.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            if Glibc.connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { return LineSocket(fd: fd) }
            let failure = lastErrno
            if failure != .nowInProgress { lastError = failure.description; _ = Glibc.close(fd); continue }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&p, 1, Int32(timeoutMs))
            if n <= 0 { lastError = n == 0 ? "timed out after \(timeoutMs) ms" : lastErrno.description; _ = Glibc.close(fd); continue }
            var soError: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
            if soError != 0 { lastError = Errno(rawValue: soError).description; _ = Glibc.close(fd); continue }
            return LineSocket(fd: fd)
        }
        throw LineSocketError(description: lastError)
    }

    package func send(_ text: String) throws(LineSocketError) {
        var bytes = Array(text.utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + off, $0.count - off, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                let failure = lastErrno
                if failure == .interrupted { continue }
                if failure == .resourceTemporarilyUnavailable {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 1000)
                    continue
                }
                throw LineSocketError(failure)
            }
            off += n
        }
    }

    /// The next line (without the newline), or nil when none arrived within `timeoutMs`.
    /// Throws when the peer closed the connection.
    package func readLine(timeoutMs: Int) throws(LineSocketError) -> String? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(timeoutMs, 0)) * 1_000_000
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                return line.hasSuffix("\r") ? String(line.dropLast()) : line
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return nil }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32((deadline - now) / 1_000_000 + 1))
            if n < 0 { let failure = lastErrno; if failure == .interrupted { continue }; throw LineSocketError(failure) }
            if n == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 16384)
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got == 0 { throw LineSocketError(description: "connection closed by peer") }
            if got < 0 {
                let failure = lastErrno
                if failure == .interrupted || failure == .resourceTemporarilyUnavailable { continue }
                throw LineSocketError(failure)
            }
            // A line longer than 1 MiB is not gpsd talking: refuse rather than grow without bound.
            if buffer.count > 1 << 20 { throw LineSocketError(description: "line longer than 1 MiB") }
            buffer.append(contentsOf: chunk[..<got])
        }
    }

    package func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
    }
}
