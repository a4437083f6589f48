import FPTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The impostor of issue 53 item 10: a TCP listener on loopback that answers
/// `{"ok":true,"valid":true}` to whatever it is sent, as the attack's 20-line
/// server did, and keeps count of the connections and the bytes it got, so a
/// test can prove nobody called it (and no token reached it).
final class FakeProbeServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var connections = 0
    private var bytes = Data()
    private var stopped = false

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError("fake probe server: socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw RawHTTPError("fake probe server: cannot listen on loopback")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    /// Connections accepted so far.
    var accepted: Int {
        lock.lock()
        defer { lock.unlock() }
        return connections
    }

    /// Everything it was sent, as text.
    var received: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Ends its thread (which holds it until then).
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func serve() {
        defer { close(fd) }
        while !isStopped {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            lock.lock()
            connections += 1
            lock.unlock()
            // One request line (a bounded wait), then "valid", as the attack's server answered.
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(client, &chunk, chunk.count)
                guard n > 0 else { break }
                lock.lock()
                bytes.append(contentsOf: chunk[0..<n])
                lock.unlock()
                if chunk[0..<n].contains(UInt8(ascii: "\n")) { break }
            }
            let answer = Array("{\"ok\":true,\"valid\":true}\n".utf8)
            _ = write(client, answer, answer.count)
            close(client)
        }
    }
}
