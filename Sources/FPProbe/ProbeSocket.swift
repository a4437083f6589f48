import FPCore
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Why a socket call failed, as one line.
public struct ProbeSocketError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let errno: Int32
    init(_ what: String, errno code: Int32 = Glibc.errno) {
        description = "\(what): \(Errno(rawValue: code).description)"
        errno = code
    }
    init(message: String) {
        description = message
        errno = 0
    }
    public var isTimeout: Bool { errno == EAGAIN || errno == EWOULDBLOCK || errno == ETIMEDOUT }
}

/// An IPv4 or IPv6 socket address.
public struct ProbeAddress: Sendable, CustomStringConvertible {
    var storage = sockaddr_storage()
    var length: socklen_t = 0

    /// Resolves `host` (name or literal) for a socket type; the first answer.
    public static func resolve(_ host: String, port: UInt16, datagram: Bool = false) throws -> ProbeAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw ProbeSocketError(message: "\(host): cannot resolve (\(String(cString: gai_strerror(rc))))")
        }
        defer { freeaddrinfo(list) }
        var address = ProbeAddress()
        withUnsafeMutableBytes(of: &address.storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        address.length = first.pointee.ai_addrlen
        return address
    }

    var family: Int32 { Int32(storage.ss_family) }

    /// The numeric host (no port), the key of per-client limits.
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let rc = withUnsafePointer(to: storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
            }
        }
        return rc == 0 ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
    }

    public var port: UInt16 {
        withUnsafePointer(to: storage) { p -> UInt16 in
            if family == AF_INET6 { return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

/// Thin, throwing wrappers over the socket calls the probe makes; EINTR is retried.
enum Sock {
    static func make(family: Int32, datagram: Bool, protocol proto: Int32 = 0) throws -> Int32 {
        let fd = socket(family, Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), proto)
        guard fd >= 0 else { throw ProbeSocketError("socket") }
        return fd
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// 4 MB of receive buffer: past net.core.rmem_max with CAP_NET_ADMIN (SO_RCVBUFFORCE), else up to it.
    static func largeReceiveBuffer(_ fd: Int32) {
        var v: Int32 = 4 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            setOption(fd, SOL_SOCKET, SO_RCVBUF, v)
        }
    }

    /// Receive and send timeouts: every blocking call has a deadline.
    static func setTimeouts(_ fd: Int32, seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Binds a listening (TCP) or receiving (UDP) socket to host:port.
    static func bound(host: String, port: UInt16, datagram: Bool) throws -> Int32 {
        let address = try ProbeAddress.resolve(host, port: port, datagram: datagram)
        let fd = try make(family: address.family, datagram: datagram)
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        // Room for a whole train's datagrams while the echo thread is busy.
        if datagram { largeReceiveBuffer(fd) }
        let rc = address.withSockaddr { bind(fd, $0, $1) }
        guard rc == 0 else {
            let e = ProbeSocketError("bind \(address)")
            close(fd)
            throw e
        }
        if !datagram, listen(fd, 64) != 0 {
            let e = ProbeSocketError("listen \(address)")
            close(fd)
            throw e
        }
        return fd
    }

    static func localPort(_ fd: Int32) -> UInt16 {
        var address = ProbeAddress()
        address.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &address.length) }
        }
        return address.port
    }

    /// Connects with a deadline (non-blocking connect, then poll).
    static func connect(to address: ProbeAddress, timeout: Double) throws -> Int32 {
        let fd = try make(family: address.family, datagram: false)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let rc = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 && errno != EINPROGRESS {
            let e = ProbeSocketError("connect \(address)")
            close(fd)
            throw e
        }
        if rc != 0 {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&p, 1, Int32(timeout * 1000))
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
            if ready <= 0 || err != 0 {
                close(fd)
                throw ProbeSocketError("connect \(address)", errno: ready <= 0 ? ETIMEDOUT : err)
            }
        }
        _ = fcntl(fd, F_SETFL, flags)
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return fd
    }

    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                throw ProbeSocketError("send")
            }
            offset += n
        }
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try sendAll(fd, $0) }
    }

    /// One recv: the count read, 0 at the peer's end.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw ProbeSocketError("recv")
        }
    }

    /// Reads exactly `count` bytes, or throws at the end of the stream.
    static func receiveExactly(_ fd: Int32, _ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        try out.withUnsafeMutableBytes { raw in
            while got < count {
                let n = try receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[got...]))
                if n == 0 { throw ProbeSocketError(message: "the connection closed early") }
                got += n
            }
        }
        return out
    }

    /// Waits until `fd` is readable, at most `seconds`; false on timeout.
    static func waitReadable(_ fd: Int32, seconds: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let rc = poll(&p, 1, Int32(max(0, seconds) * 1000))
            if rc < 0 && errno == EINTR { continue }
            return rc > 0
        }
    }
}

/// A monotonic clock in microseconds (CLOCK_MONOTONIC: no jumps with NTP steps).
public enum ProbeClock {
    public static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }
}

/// Newline-framed JSON lines over a stream socket, with a length bound.
struct LineChannel {
    let fd: Int32
    var pending: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// One line of at most `maxBytes`, whole within `seconds` (a client trickling bytes cannot hold a connection).
    mutating func readLine(maxBytes: Int, within seconds: Double = 60) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ProbeClock.nowMicros() + Int64(seconds * 1e6)
        while true {
            if let nl = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<nl])
                pending.removeSubrange(...nl)
                return line
            }
            if pending.count > maxBytes { throw ProbeSocketError(message: "a line longer than \(maxBytes) bytes") }
            if ProbeClock.nowMicros() > deadline { throw ProbeSocketError(message: "no whole line within \(Int(seconds)) s") }
            let n = try chunk.withUnsafeMutableBytes { try Sock.receive(fd, into: $0) }
            if n == 0 { throw ProbeSocketError(message: "the connection closed before a full line") }
            pending.append(contentsOf: chunk[..<n])
        }
    }

    mutating func readJSON(maxBytes: Int, within seconds: Double = 60) throws -> JSONValue {
        let line = try readLine(maxBytes: maxBytes, within: seconds)
        do { return try CanonicalJSON.parse(Data(line)) } catch {
            throw ProbeSocketError(message: "a line that is not JSON (\(error))")
        }
    }

    func write(_ value: JSONValue) throws {
        var bytes = CanonicalJSON.bytes(value)
        bytes.append(0x0A)
        try Sock.sendAll(fd, bytes)
    }
}

/// Datagrams with the kernel's receive time (SO_TIMESTAMPNS), so the time a
/// busy or slow process takes to read them is not counted as network delay
/// (as ping does). Times are CLOCK_REALTIME microseconds, the kernel's clock
/// for these stamps; send times are read from the same clock.
enum StampedDatagrams {
    /// SO_TIMESTAMPNS (SO_TIMESTAMPNS_OLD on 64-bit Linux) and its control message type, SCM_TIMESTAMPNS.
    static let timestampNS: Int32 = 35

    static func enable(_ fd: Int32) { Sock.setOption(fd, SOL_SOCKET, timestampNS, 1) }

    static func nowMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// One datagram: its length, when the kernel received it, and the sender's address.
    static func receive(_ fd: Int32, into buffer: inout [UInt8]) -> (count: Int, atMicros: Int64, from: ProbeAddress)? {
        var from = ProbeAddress()
        var control = [UInt8](repeating: 0, count: 128)
        var msg = msghdr()
        var got = -1
        buffer.withUnsafeMutableBytes { raw in
            control.withUnsafeMutableBytes { ctl in
                withUnsafeMutablePointer(to: &from.storage) { addr in
                    var iov = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                    withUnsafeMutablePointer(to: &iov) { iovp in
                        msg.msg_name = UnsafeMutableRawPointer(addr)
                        msg.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        msg.msg_iov = iovp
                        msg.msg_iovlen = 1
                        msg.msg_control = ctl.baseAddress
                        msg.msg_controllen = ctl.count
                        got = recvmsg(fd, &msg, 0)
                    }
                }
            }
        }
        guard got >= 0 else { return nil }
        from.length = msg.msg_namelen
        return (got, stamp(control, length: Int(msg.msg_controllen)) ?? nowMicros(), from)
    }

    /// The SCM_TIMESTAMPNS timespec among the control messages (cmsghdr: 8-byte length, level, type; data 8-aligned).
    static func stamp(_ control: [UInt8], length: Int) -> Int64? {
        var offset = 0
        func word(_ at: Int, _ size: Int) -> Int64 {
            var v: UInt64 = 0
            for i in (0..<size).reversed() { v = v << 8 | UInt64(control[at + i]) }  // little-endian (x86_64, arm64)
            return Int64(bitPattern: v)
        }
        while offset + 16 <= min(length, control.count) {
            let len = Int(word(offset, 8))
            let level = Int32(truncatingIfNeeded: word(offset + 8, 4)), type = Int32(truncatingIfNeeded: word(offset + 12, 4))
            guard len >= 16 else { return nil }
            if level == SOL_SOCKET && type == timestampNS && len >= 32 && offset + 32 <= control.count {
                return word(offset + 16, 8) * 1_000_000 + word(offset + 24, 8) / 1000
            }
            offset += (len + 7) & ~7
        }
        return nil
    }
}
