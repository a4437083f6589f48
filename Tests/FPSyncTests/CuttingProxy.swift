import FPCore
import Foundation
import Glibc

/// A TCP proxy on a free loopback port that forwards to `upstreamPort` and
/// cuts every connection at a random point: each accepted connection gets a
/// byte budget (both directions together), drawn from `1...maxCutBytes` with
/// probability `cutProbability`, else from `maxCutBytes...8×maxCutBytes` (so
/// kept-alive connections die too, and large requests can still pass). When
/// the budget is spent the proxy forwards exactly that many bytes and closes
/// both sides, which lands the cut mid-request or mid-response. Seeded, so a
/// failure reproduces.
///
/// Blocking socket loops run on their own threads, never on Swift's
/// cooperative pool.
final class CuttingProxy: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let lock = NSLock()
    // Guarded by `lock`.
    private var generator: SeededRandom
    private var cutCount = 0
    private var connectionCount = 0
    private var stopped = false
    private var open: Set<Int32> = []
    private let cutProbability: Double
    private let maxCutBytes: Int

    init(upstreamPort: Int, cutProbability: Double, maxCutBytes: Int, seed: UInt64) throws {
        self.upstreamPort = upstreamPort
        self.cutProbability = cutProbability
        self.maxCutBytes = maxCutBytes
        generator = SeededRandom(seed: seed)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        getsockname(fd, withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { $0 } },
                    &length)
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Connections accepted so far, and how many of them were cut.
    var counts: (connections: Int, cuts: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (connectionCount, cutCount)
    }

    func stop() {
        lock.lock()
        stopped = true
        let sockets = open
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return  // listener closed by stop()
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: UInt16(upstreamPort))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            lock.lock()
            let isStopped = stopped
            connectionCount += 1
            let budget = Double.random(in: 0..<1, using: &generator) < cutProbability
                ? Int.random(in: 1...maxCutBytes, using: &generator)
                : Int.random(in: maxCutBytes...(8 * maxCutBytes), using: &generator)
            if connected == 0, !isStopped { open.formUnion([client, upstream]) }
            lock.unlock()
            guard connected == 0, !isStopped else {
                close(client)
                close(upstream)
                continue
            }
            let connection = Connection(client: client, upstream: upstream, budget: budget) { [self] in
                lock.lock()
                cutCount += 1
                lock.unlock()
            } closed: { [self] in
                lock.lock()
                open.subtract([client, upstream])
                lock.unlock()
            }
            Thread.detachNewThread { connection.pump(from: client, to: upstream) }
            Thread.detachNewThread { connection.pump(from: upstream, to: client) }
        }
    }

    /// One proxied connection: two pumps share the byte budget.
    final class Connection: @unchecked Sendable {
        let client: Int32
        let upstream: Int32
        private let lock = NSLock()
        // Guarded by `lock`.
        private var remaining: Int
        private var pumpsRunning = 2
        private var wasCut = false
        private let onCut: () -> Void
        private let onClosed: () -> Void

        init(client: Int32, upstream: Int32, budget: Int, onCut: @escaping () -> Void, closed: @escaping () -> Void) {
            self.client = client
            self.upstream = upstream
            remaining = budget
            self.onCut = onCut
            onClosed = closed
        }

        /// How many of `count` bytes may pass; 0 once the budget is spent.
        private func take(_ count: Int) -> Int {
            lock.lock()
            defer { lock.unlock() }
            let allowed = min(remaining, count)
            remaining -= allowed
            return allowed
        }

        private func cut() {
            lock.lock()
            let first = !wasCut
            wasCut = true
            lock.unlock()
            if first { onCut() }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
        }

        func pump(from source: Int32, to destination: Int32) {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            loop: while true {
                let got = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if got < 0, errno == EINTR { continue }
                if got <= 0 { break }
                let allowed = take(got)
                var sent = 0
                while sent < allowed {
                    let n = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + sent, allowed - sent) }
                    if n < 0, errno == EINTR { continue }
                    if n <= 0 { break loop }
                    sent += n
                }
                if allowed < got {
                    cut()
                    break
                }
            }
            // End of this direction: pass the half-close on, and close both once both pumps are done.
            shutdown(destination, Int32(SHUT_WR))
            lock.lock()
            pumpsRunning -= 1
            let last = pumpsRunning == 0
            lock.unlock()
            if last {
                close(client)
                close(upstream)
                onClosed()
            }
        }
    }
}
