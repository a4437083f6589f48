import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The UDP sessions the TCP side opened, and the thread that echoes their datagrams.
final class ProbeUDPSessions: @unchecked Sendable {
    struct Arrival { var seq: UInt32, clientSent: Int64, serverReceived: Int64, serverSent: Int64 = 0 }
    final class Session {
        let client: String
        let count: Int
        var arrivals: [Arrival] = []
        var seen = Set<UInt32>()
        init(client: String, count: Int) { (self.client, self.count) = (client, count) }
    }

    private let lock = NSLock()
    private var sessions: [UInt64: Session] = [:]
    let fd: Int32
    /// Tests: a server whose UDP is filtered (every datagram dropped unanswered).
    let dropAll: Bool
    private var stopped = false

    init(fd: Int32, dropAll: Bool) {
        (self.fd, self.dropAll) = (fd, dropAll)
        StampedDatagrams.enable(fd)
    }

    func open(client: String, count: Int) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        var id: UInt64 = 0
        repeat { id = UInt64.random(in: 1...UInt64.max) } while sessions[id] != nil
        sessions[id] = Session(client: client, count: count)
        return id
    }

    /// Ends a session and hands back what arrived, in arrival order.
    func close(_ id: UInt64) -> [Arrival] {
        lock.lock()
        defer { lock.unlock() }
        return sessions.removeValue(forKey: id)?.arrivals ?? []
    }

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

    /// The echo loop (its own thread): answers hellos, records and echoes hops.
    func run() {
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !isStopped {
            guard Sock.waitReadable(fd, seconds: 0.2) else { continue }
            guard let (n, now, from) = StampedDatagrams.receive(fd, into: &buffer) else { continue }
            guard n > 0, !dropAll, var datagram = ProbeWire.Datagram(buffer[..<n]) else { continue }
            lock.lock()
            let session = sessions[datagram.session]
            var answer = false
            // Only the address that opened the session over TCP is answered: no reflection to third parties.
            if let session, session.client == from.host {
                switch datagram.kind {
                case .hello:
                    datagram.kind = .helloAck
                    answer = true
                case .hop where Int(datagram.seq) < session.count && !session.seen.contains(datagram.seq):
                    session.seen.insert(datagram.seq)
                    datagram.kind = .echo
                    datagram.serverReceivedMicros = now
                    // The echo's send time: now, just before sendto (the down direction's jitter counts from it).
                    session.arrivals.append(Arrival(seq: datagram.seq, clientSent: datagram.clientSentMicros, serverReceived: now,
                                                    serverSent: StampedDatagrams.nowMicros()))
                    answer = true
                default: break
                }
            }
            lock.unlock()
            guard answer else { continue }
            let reply = datagram.bytes(size: n)
            _ = reply.withUnsafeBytes { raw in from.withSockaddr { sendto(fd, raw.baseAddress, raw.count, 0, $0, $1) } }
        }
    }
}
