import FPCore
import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// ICMP echo through an unprivileged ICMP socket (SOCK_DGRAM, IPPROTO_ICMP),
/// allowed for the groups in net.ipv4.ping_group_range. Measured by the
/// client, so unsigned; when the socket is not allowed the phase says so.
struct ProbePing {
    let host: String
    let count: Int
    var spacing: Double = 0.2
    var timeout: Double = 1
    var cancellation = ProbeCancellation()

    func run() -> ProbePhase {
        guard count > 0 else { return .failed("ping", .skipped, "no pings asked for") }
        let address: ProbeAddress
        do { address = try ProbeAddress.resolve(host, port: 0, datagram: true) } catch {
            return .failed("ping", .unreachable, "\(error)")
        }
        guard address.family == AF_INET else { return .failed("ping", .unavailable, "ICMP ping over IPv6 is not supported yet") }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Int32(IPPROTO_ICMP))
        guard fd >= 0 else {
            let why = Errno(rawValue: errno).description
            return .failed("ping", .unavailable, "no unprivileged ICMP socket (\(why)); net.ipv4.ping_group_range does not include this user's group")
        }
        cancellation.watch(fd)
        defer { cancellation.close(fd) }
        Sock.setTimeouts(fd, seconds: timeout)
        var rtts: [Double] = []
        for seq in 0..<count where !cancellation.isCancelled {
            if seq > 0 { usleep(useconds_t(spacing * 1e6)) }
            // Type 8 (echo request), code 0; the kernel sets the identifier and the checksum.
            var packet: [UInt8] = [8, 0, 0, 0, 0, 0, UInt8(seq >> 8), UInt8(seq & 0xFF)]
            packet += ProbeWire.beBytes(UInt64(seq), count: 8)
            let sent = ProbeClock.nowMicros()
            let n = packet.withUnsafeBytes { raw in address.withSockaddr { sendto(fd, raw.baseAddress, raw.count, 0, $0, $1) } }
            guard n == packet.count else { continue }
            let deadline = sent + Int64(timeout * 1e6)
            var buffer = [UInt8](repeating: 0, count: 1500)
            while ProbeClock.nowMicros() < deadline, !cancellation.isCancelled {
                guard Sock.waitReadable(fd, seconds: Double(deadline - ProbeClock.nowMicros()) / 1e6) else { break }
                let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                // Type 0 (echo reply) with our sequence number.
                if got >= 8, buffer[0] == 0, Int(buffer[6]) << 8 | Int(buffer[7]) == seq {
                    rtts.append(Double(ProbeClock.nowMicros() - sent) / 1000)
                    break
                }
            }
        }
        var figures = JSONObject()
        figures["sent"] = .int(Int64(count))
        figures["received"] = .int(Int64(rtts.count))
        figures["lossPercent"] = .double(ProbeStats.rounded(ProbeStats.lossPercent(sent: count, received: rtts.count)))
        if let summary = ProbeStats.summary(rtts) { figures["rttMs"] = summary.json }
        guard !rtts.isEmpty else { return ProbePhase(name: "ping", status: .timeout, reason: "no ICMP echo reply from \(host)", figures: figures) }
        return ProbePhase(name: "ping", status: .ok, figures: figures)
    }
}
