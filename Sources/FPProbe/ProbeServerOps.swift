import FPCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One authenticated op of one connection: the server side of each phase.
struct ProbeOpContext {
    let server: ProbeServer
    var channel: LineChannel
    let client: String
    let user: String
    let request: JSONValue
    /// Given back before the last answer (see `ProbeSlot`).
    let slot: ProbeSlot
    var limits: ProbeLimits { server.config.limits }
    var fd: Int32 { channel.fd }

    /// What the client asked for, clamped to the server's bounds.
    func bounded() -> (seconds: Double, bytes: Int) {
        let seconds = min(max(request["seconds"]?.doubleValue ?? 5, 0.2), limits.maxSeconds)
        let bytes = Int(min(max(request["bytes"]?.doubleValue ?? Double(limits.maxBytes), 1), Double(limits.maxBytes)))
        return (seconds, bytes)
    }

    /// Fields every result has: who, where from, when, a nonce (no two results alike).
    func base(_ phase: String) -> JSONValue {
        ["phase": .string(phase), "user": .string(user), "client": .string(client),
         "at": .string(ISOTime.string(Date())), "nonce": .string(String(UInt64.random(in: 0...UInt64.max), radix: 16))]
    }

    func sendSigned(_ result: JSONValue) throws {
        let signed = try server.config.signer.sign(result)
        slot.release()
        try channel.write(["ok": true, "signed": signed])
    }

    /// Download: frames out, acknowledgements in; throughput from the acknowledgements' times.
    func download() throws {
        let (seconds, limit) = bounded()
        // A send may wait out a stalled link (retransmission timeouts on a lossy one), but not past the bound.
        Sock.setTimeouts(fd, seconds: seconds + 10)
        try channel.write(["ok": true, "seconds": .double(seconds), "bytes": .int(Int64(limit))])
        let payload = [UInt8](repeating: 0x5A, count: ProbeWire.frameSize)
        let start = ProbeClock.nowMicros()
        var sent = 0
        var samples: [(seconds: Double, bytes: Int)] = []
        var ackBuffer: [UInt8] = []
        func readAcks(wait: Double) throws -> Bool {
            guard Sock.waitReadable(fd, seconds: wait) else { return true }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = try chunk.withUnsafeMutableBytes { try Sock.receive(fd, into: $0) }
            if n == 0 { return false }
            let now = Double(ProbeClock.nowMicros() - start) / 1e6
            ackBuffer += chunk[..<n]
            while ackBuffer.count >= 8 {
                let count = Int(ProbeWire.read(Array(ackBuffer[0..<8]), 0, 8))
                ackBuffer.removeFirst(8)
                // A client cannot acknowledge what was never sent.
                guard count <= sent else { throw ProbeSocketError(message: "acknowledged more than was sent") }
                samples.append((now, count))
            }
            return true
        }
        func elapsed() -> Double { Double(ProbeClock.nowMicros() - start) / 1e6 }
        while sent < limit && elapsed() < seconds {
            // Not more unacknowledged than about 2 s at the rate of the last second (at least 256 KiB), so
            // the end is not followed by a long drain of socket buffers on a slow link: a lossy link
            // (5 %, 80 ms) carries ~100 KB/s, and 1 MiB in flight took longer than the wait below.
            let recent = samples.last { $0.seconds <= elapsed() - 1 } ?? (0, 0)
            let window = max(256 << 10, 2 * ((samples.last?.bytes ?? 0) - recent.bytes))
            if sent - (samples.last?.bytes ?? 0) >= window {
                guard try readAcks(wait: min(0.1, seconds - elapsed())) else { break }
                continue
            }
            let size = min(payload.count, limit - sent)
            let header = ProbeWire.beBytes(UInt64(size), count: 4)
            try Sock.sendAll(fd, header)
            try payload.withUnsafeBytes { try Sock.sendAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<size])) }
            sent += size
            _ = try readAcks(wait: 0)
        }
        try Sock.sendAll(fd, [0, 0, 0, 0])
        // The last acknowledgement, within a deadline.
        let deadline = elapsed() + 20
        while samples.last?.bytes != sent && elapsed() < deadline {
            guard try readAcks(wait: 0.5) else { break }
        }
        var result = base("down")
        let last = samples.last ?? (0, 0)
        result["bytes"] = .int(Int64(last.bytes))
        result["seconds"] = .double(ProbeStats.rounded(last.seconds))
        result["boundSeconds"] = .double(seconds)
        result["boundBytes"] = .int(Int64(limit))
        if let bps = ProbeStats.throughput(samples) { result["bitsPerSecond"] = .int(Int64(bps)) }
        try sendSigned(result)
        drainUntilClosed()
    }

    /// Reads and discards until the client closes (at most 20 s: a client still working through a
    /// slow link's backlog keeps acknowledging): closing with unread bytes would reset the
    /// connection and could destroy the result line still on its way.
    func drainUntilClosed() {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let deadline = ProbeClock.nowMicros() + 20_000_000
        while ProbeClock.nowMicros() < deadline, Sock.waitReadable(fd, seconds: 0.5) {
            guard let n = try? chunk.withUnsafeMutableBytes({ try Sock.receive(fd, into: $0) }), n > 0 else { return }
        }
    }

    /// Upload: the client sends until it half-closes; the server times its reads and stops at its bounds.
    func upload() throws {
        let (seconds, limit) = bounded()
        Sock.setTimeouts(fd, seconds: seconds + 10)
        try channel.write(["ok": true, "seconds": .double(seconds), "bytes": .int(Int64(limit))])
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        var received = 0
        var samples: [(seconds: Double, bytes: Int)] = []
        var start: Int64?
        var truncated = false
        // The time limit counts from the first byte, with 2 s of grace for what the client's buffers still hold.
        while true {
            let elapsed = start.map { Double(ProbeClock.nowMicros() - $0) / 1e6 } ?? 0
            if received >= limit || elapsed > seconds + 2 {
                truncated = true
                break
            }
            guard Sock.waitReadable(fd, seconds: start == nil ? 5 : seconds + 2 - elapsed) else { continue }
            let n = try buffer.withUnsafeMutableBytes { try Sock.receive(fd, into: $0) }
            if n == 0 { break }
            let now = ProbeClock.nowMicros()
            if start == nil { start = now }
            received += n
            samples.append((Double(now - start!) / 1e6, min(received, limit)))
        }
        var result = base("up")
        let last = samples.last ?? (0, 0)
        result["bytes"] = .int(Int64(last.bytes))
        result["seconds"] = .double(ProbeStats.rounded(last.seconds))
        result["boundSeconds"] = .double(seconds)
        result["boundBytes"] = .int(Int64(limit))
        if truncated { result["truncated"] = true }
        if let bps = ProbeStats.throughput(samples) { result["bitsPerSecond"] = .int(Int64(bps)) }
        try sendSigned(result)
        if truncated { drainUntilClosed() }
    }

    /// The UDP train: open a session, wait for the client's report, compute and sign.
    mutating func udpTrain(_ udp: ProbeUDPSessions) throws {
        let spacing = min(max(request["spacingMs"]?.doubleValue ?? 20, 1), 1000)
        // The train fits in the time bound.
        let count = min(max(Int(request["count"]?.intValue ?? 200), 1), limits.maxDatagrams,
                        Int(limits.maxSeconds * 1000 / spacing))
        let session = udp.open(client: client, count: count)
        defer { _ = udp.close(session) }
        try channel.write(["ok": true, "session": .string(String(session, radix: 16)), "count": .int(Int64(count)),
                           "spacingMs": .double(spacing)])
        // The report comes after the train and the hello's re-sends (4 × 4 s), within a deadline.
        Sock.setTimeouts(fd, seconds: limits.maxSeconds + 25)
        let report = try channel.readJSON(maxBytes: ProbeWire.maxLine)
        let arrivals = udp.close(session)
        let sentByClient = min(max(Int(report["sent"]?.intValue ?? 0), 0), count)
        let echoedAt = Dictionary(arrivals.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a })
        // Echoes the client says it got; only of datagrams the server did echo.
        var echoes: [(arrival: ProbeUDPSessions.Arrival, clientReceived: Int64)] = []
        var seen = Set<UInt32>()
        for item in report["echoes"]?.arrayValue ?? [] {
            guard let pair = item.arrayValue, pair.count == 2, let seq = pair[0].intValue, let at = pair[1].intValue,
                  let arrival = echoedAt[UInt32(truncatingIfNeeded: seq)], !seen.contains(arrival.seq),
                  at >= arrival.clientSent else { continue }
            seen.insert(arrival.seq)
            echoes.append((arrival, at))
        }
        echoes.sort { $0.clientReceived < $1.clientReceived }
        var result = base("udp")
        result["datagrams"] = .int(Int64(count))
        result["sent"] = .int(Int64(sentByClient))
        result["receivedByServer"] = .int(Int64(arrivals.count))
        result["echoesReceived"] = .int(Int64(echoes.count))
        result["spacingMs"] = .double(spacing)
        result["lossUpPercent"] = .double(ProbeStats.rounded(ProbeStats.lossPercent(sent: sentByClient, received: arrivals.count)))
        result["lossDownPercent"] = .double(ProbeStats.rounded(ProbeStats.lossPercent(sent: arrivals.count, received: echoes.count)))
        if let j = ProbeStats.jitter(arrivals.map { (Double($0.clientSent) / 1000, Double($0.serverReceived) / 1000) }) {
            result["jitterUpMs"] = .double(ProbeStats.rounded(j))
        }
        if let j = ProbeStats.jitter(echoes.map { (Double($0.arrival.serverSent) / 1000, Double($0.clientReceived) / 1000) }) {
            result["jitterDownMs"] = .double(ProbeStats.rounded(j))
        }
        // Round trips less the server's hold time (receive stamp to echo), as TWAMP reflectors report it:
        // the network's delay, not how quickly this process was scheduled.
        let rtts = echoes.map { e in
            Double((e.clientReceived - e.arrival.clientSent) - max(0, e.arrival.serverSent - e.arrival.serverReceived)) / 1000
        }
        if let rtt = ProbeStats.summary(rtts) {
            result["rttMs"] = rtt.json
        }
        try sendSigned(result)
    }
}

extension ProbeStats.Summary {
    public var json: JSONValue {
        ["min": .double(ProbeStats.rounded(min)), "avg": .double(ProbeStats.rounded(avg)), "max": .double(ProbeStats.rounded(max)),
         "median": .double(ProbeStats.rounded(median)), "count": .int(Int64(count))]
    }
}
