import FPCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `fprint gateway --probe-port`: the probe endpoints, TCP and UDP on one
/// port. Each connection runs on a thread of its own (blocking sockets with
/// deadlines), the UDP echo on another; none touches Swift's cooperative pool.
public final class ProbeServer: @unchecked Sendable {
    public struct Config: Sendable {
        public var host: String
        public var port: UInt16
        public var limits = ProbeLimits()
        /// The user a token stands for, or throws why it is refused (the token is never logged).
        public var authenticate: @Sendable (String) throws -> String
        public var signer: ProbeSigner
        /// Tests only: drop every datagram, as a firewall that blocks UDP would.
        public var dropUDP = false

        public init(host: String, port: UInt16, signer: ProbeSigner, authenticate: @escaping @Sendable (String) throws -> String) {
            (self.host, self.port, self.signer, self.authenticate) = (host, port, signer, authenticate)
        }
    }

    let config: Config
    let limiter: ProbeRateLimiter
    private var listener: Int32 = -1
    private var udp: ProbeUDPSessions?
    private let lock = NSLock()
    private var stopped = false
    private var connections = 0

    public init(_ config: Config) {
        self.config = config
        limiter = ProbeRateLimiter(limits: config.limits)
    }

    /// Binds TCP and UDP on the port (0: a free one, the same for both) and
    /// starts serving; returns the port.
    public func start() throws -> UInt16 {
        var lastError: Error?
        // With port 0 the kernel picks the TCP port, and UDP takes the same number; retry if that one is taken for UDP.
        for _ in 0..<20 {
            let tcp = try Sock.bound(host: config.host, port: config.port, datagram: false)
            let port = Sock.localPort(tcp)
            do {
                let udpFD = try Sock.bound(host: config.host, port: port, datagram: true)
                listener = tcp
                let sessions = ProbeUDPSessions(fd: udpFD, dropAll: config.dropUDP)
                udp = sessions
                Thread.detachNewThread { sessions.run() }
                Thread.detachNewThread { [self] in acceptLoop() }
                return port
            } catch {
                close(tcp)
                lastError = error
                if config.port != 0 { break }
            }
        }
        throw lastError ?? ProbeSocketError(message: "cannot bind the probe port")
    }

    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        udp?.stop()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func acceptLoop() {
        while !isStopped {
            guard Sock.waitReadable(listener, seconds: 0.2) else { continue }
            var peer = ProbeAddress()
            peer.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &peer.storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &peer.length) }
            }
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            lock.lock()
            let full = connections >= config.limits.maxConnections
            if !full { connections += 1 }
            lock.unlock()
            if full {
                Sock.setTimeouts(fd, seconds: 1)
                try? LineChannel(fd: fd).write(ProbeWire.refusal(.rateLimited, "the probe server is busy; try again in 5 s", retryAfter: 5))
                close(fd)
                continue
            }
            let client = peer.host
            Thread.detachNewThread { [self] in
                serve(fd: fd, client: client)
                close(fd)
                lock.lock()
                connections -= 1
                lock.unlock()
            }
        }
        close(listener)
        if let udp { close(udp.fd) }
    }

    /// One connection: request line, admission, authentication, then the op.
    private func serve(fd: Int32, client: String) {
        Sock.setTimeouts(fd, seconds: 5)
        var channel = LineChannel(fd: fd)
        // Before authentication: a bounded line, whole within 10 s.
        guard let request = try? channel.readJSON(maxBytes: ProbeWire.maxLine, within: 10) else {
            try? channel.write(ProbeWire.refusal(.protocolError, "expected one JSON request line"))
            return
        }
        if let wait = limiter.admit(client) {
            try? channel.write(ProbeWire.refusal(.rateLimited, "too many probes from \(client); try again in \(wait) s", retryAfter: wait))
            return
        }
        let slot = ProbeSlot(limiter, client: client)
        defer { slot.release() }
        let user: String
        do { user = try config.authenticate(request["token"]?.stringValue ?? "") } catch {
            slot.release()  // before the answer, as every last answer (ProbeSlot)
            try? channel.write(ProbeWire.refusal(.unauthorized, "token refused: \(error)"))
            return
        }
        var context = ProbeOpContext(server: self, channel: channel, client: client, user: user, request: request, slot: slot)
        do {
            switch request["op"]?.stringValue {
            case "down": try context.download()
            case "up": try context.upload()
            case "udp":
                guard let udp else { throw ProbeSocketError(message: "no UDP socket") }
                try context.udpTrain(udp)
            default: try channel.write(ProbeWire.refusal(.protocolError, "unknown op; expected down, up or udp"))
            }
        } catch {
            // The client went away or broke the protocol: nothing to sign.
            try? channel.write(ProbeWire.refusal(.protocolError, "\(error)"))
        }
    }
}
