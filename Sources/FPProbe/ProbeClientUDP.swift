import FPCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ProbeClient {
    /// The UDP train: a session over TCP, a hello (re-sent every 4 s, 3
    /// times), the datagrams at their spacing with the echoes collected, then
    /// the report of what came back and the server's signed figures.
    func udpTrain() throws -> ProbePhase {
        var (channel, answer) = try open(["op": "udp", "count": .int(Int64(options.datagrams)), "spacingMs": .double(options.spacingMs)])
        defer { cancellation.close(channel.fd) }
        guard let sessionText = answer["session"]?.stringValue, let session = UInt64(sessionText, radix: 16) else {
            throw ProbeFailure(status: .protocolError, reason: "\(endpoint): no UDP session in the answer")
        }
        let count = Int(answer["count"]?.intValue ?? Int64(options.datagrams))
        let spacing = answer["spacingMs"]?.doubleValue ?? options.spacingMs
        let address = try ProbeAddress.resolve(options.host, port: options.port, datagram: true)
        let fd = try Sock.make(family: address.family, datagram: true)
        cancellation.watch(fd)
        defer { cancellation.close(fd) }
        // Room for every echo of a train should this process be slow to read them (a busy or emulated machine).
        Sock.largeReceiveBuffer(fd)
        StampedDatagrams.enable(fd)
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else { throw ProbeSocketError("connect UDP \(endpoint)") }
        let size = max(options.datagramSize, ProbeWire.headerSize)

        // The hello: the one UDP command that must be answered before the train.
        var answered = false
        for _ in 0...options.udpRetries where !answered {
            let hello = ProbeWire.Datagram(kind: .hello, session: session, seq: 0, clientSentMicros: StampedDatagrams.nowMicros())
            _ = hello.bytes(size: size).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            let deadline = ProbeClock.nowMicros() + Int64(options.udpRetryInterval * 1e6)
            while !answered, !cancellation.isCancelled, ProbeClock.nowMicros() < deadline {
                guard Sock.waitReadable(fd, seconds: Double(deadline - ProbeClock.nowMicros()) / 1e6),
                      let reply = receive(fd) else { continue }
                answered = reply.datagram.kind == .helloAck && reply.datagram.session == session
            }
        }
        guard answered else {
            if cancellation.isCancelled { throw ProbeFailure(status: .skipped, reason: "stopped") }
            throw ProbeFailure(status: .noUDPAnswer, reason: "\(endpoint): no answer over UDP after \(options.udpRetries) re-sends "
                + "\(Int(options.udpRetryInterval)) s apart (is UDP blocked on the way?)")
        }

        var echoes: [UInt32: Int64] = [:]
        var maxRTT: Int64 = 0
        let start = ProbeClock.nowMicros()
        func collect(until: Int64) {
            while true {
                let now = ProbeClock.nowMicros()
                guard now < until, !cancellation.isCancelled,
                      Sock.waitReadable(fd, seconds: Double(until - now) / 1e6) else { return }
                guard let reply = receive(fd), reply.datagram.kind == .echo, reply.datagram.session == session,
                      echoes[reply.datagram.seq] == nil else { continue }
                echoes[reply.datagram.seq] = reply.at
                maxRTT = max(maxRTT, reply.at - reply.datagram.clientSentMicros)
            }
        }
        for seq in 0..<count where !cancellation.isCancelled {
            let due = start + Int64(Double(seq) * spacing * 1000)
            collect(until: due)
            let hop = ProbeWire.Datagram(kind: .hop, session: session, seq: UInt32(seq), clientSentMicros: StampedDatagrams.nowMicros())
            _ = hop.bytes(size: size).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        }
        // Stragglers: 1 s, or 3 round trips if longer (at most the retry interval).
        collect(until: ProbeClock.nowMicros() + min(max(1_000_000, 3 * maxRTT), Int64(options.udpRetryInterval * 1e6)))

        let pairs = echoes.sorted { $0.key < $1.key }.map { JSONValue.array([.int(Int64($0.key)), .int($0.value)]) }
        try channel.write(["op": "udp-report", "sent": .int(Int64(count)), "echoes": .array(pairs)])
        return try result("udp", &channel)
    }

    /// One datagram of ours and when the kernel received it; nil for anything else.
    private func receive(_ fd: Int32) -> (datagram: ProbeWire.Datagram, at: Int64)? {
        var buffer = [UInt8](repeating: 0, count: 2048)
        guard let (n, at, _) = StampedDatagrams.receive(fd, into: &buffer), n > 0,
              let datagram = ProbeWire.Datagram(buffer[..<n]) else { return nil }
        return (datagram, at)
    }
}
