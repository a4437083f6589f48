import Foundation

/// Plain blocking TCP sockets to a loopback gateway: what an attacker or a
/// slow client does byte by byte, which an HTTP library would not let us do.
public struct RawConnection: Sendable {
    public let fd: Int32

    /// Connects to the gateway on loopback; `from` picks the client's own
    /// loopback address (127.0.0.2 …), as another host on the network would be.
    public init(port: Int, from source: String? = nil) throws {
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
    public func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { Array(text.utf8).withUnsafeBytes { send($0) } }

    /// Reads until the peer closes or `timeout` passes; returns what arrived.
    /// Waits on a thread of its own (`offThePool`), not the caller's.
    public func readAll(timeout: TimeInterval, stopAfterHeaders: Bool = false) async -> String {
        await offThePool("raw-read") { self.readAllBlocking(timeout: timeout, stopAfterHeaders: stopAfterHeaders) }
    }

    /// `readAll` on the calling thread: only from a thread that may block
    /// (one of the test's own, never a task of the cooperative pool).
    public func readAllBlocking(timeout: TimeInterval, stopAfterHeaders: Bool = false) -> String {
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
    public static func status(_ answer: String) -> Int? {
        let parts = answer.split(separator: " ", maxSplits: 2)
        return parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") ? Int(parts[1]) : nil
    }

    public func close() { Glibc.close(fd) }

    /// Whether the peer has closed the connection (a read returns end of file within 5 s).
    public func isClosedByPeer() async -> Bool {
        await offThePool("raw-eof") { self.isClosedByPeerBlocking() }
    }

    private func isClosedByPeerBlocking() -> Bool {
        var byte: UInt8 = 0
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        return recv(fd, &byte, 1, 0) == 0
    }
}

public struct RawHTTPError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

