#if canImport(Glibc)
import Glibc
#endif
import CNetlink
import Foundation
import SystemPackage

/// A netlink call that failed: the errno and what was being done.
struct NetlinkError: Error, CustomStringConvertible {
    let code: Errno
    let what: String
    /// The failure of the call just made: the thread's errno now.
    static func lastCall(_ what: String) -> NetlinkError { NetlinkError(code: Errno(rawValue: errno), what: what) }
    var description: String { "\(what): \(code)" }
}

/// A generic-netlink socket speaking request/response with the kernel. One owner
/// thread uses it; receive is bounded by `poll` so loops can stop.
final class GenericNetlinkSocket: @unchecked Sendable {
    private let fd: Int32
    private var seq: UInt32 = 1

    init() throws(NetlinkError) {
        fd = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 16 /* NETLINK_GENERIC */)
        guard fd >= 0 else { throw .lastCall("netlink socket") }
        // nl_pid 0 lets the kernel assign one; no multicast groups.
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        let rc = withUnsafePointer(to: &address) { typed in
            typed.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard rc == 0 else { let failure = NetlinkError.lastCall("netlink bind"); close(fd); throw failure }
    }

    deinit { close(fd) }

    /// Sends one request and collects the genl payloads of the answer: until DONE for
    /// dumps, until the ACK otherwise. Throws with the kernel's errno on NLMSG_ERROR.
    func transact(family: UInt16, cmd: UInt8, dump: Bool, attributes: [UInt8], timeoutMs: Int = 3000)
        throws(NetlinkError) -> [ArraySlice<UInt8>]
    {
        seq &+= 1
        let mySeq = seq
        let flags = NL80211.NLM_F_REQUEST | NL80211.NLM_F_ACK | (dump ? NL80211.NLM_F_DUMP : 0)
        let req = NL80211.request(family: family, cmd: cmd, flags: flags, seq: mySeq, attributes: attributes)
        let sent = req.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        guard sent == req.count else { throw .lastCall("netlink send") }
        var payloads: [ArraySlice<UInt8>] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMs) * 1_000_000
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw NetlinkError(code: .timedOut, what: "netlink answer") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, Int32((deadline - now) / 1_000_000 + 1))
            if n < 0 { if Errno(rawValue: errno) == .interrupted { continue }; throw .lastCall("netlink poll") }
            if n == 0 { continue }
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got < 0 {
                let failure = NetlinkError.lastCall("netlink receive")
                if failure.code == .interrupted || failure.code == .resourceTemporarilyUnavailable { continue }
                throw failure
            }
            guard let messages = NL80211.messages(buffer[0..<got]) else {
                throw NetlinkError(code: .badMessage, what: "netlink message framing")
            }
            for m in messages where m.seq == mySeq {
                switch m.type {
                case NL80211.NLMSG_DONE: return payloads
                case NL80211.NLMSG_ERROR:
                    guard m.payload.count >= 4 else { throw NetlinkError(code: .badMessage, what: "netlink error message") }
                    let code = Int32(bitPattern: NL80211.u32(m.payload, m.payload.startIndex))
                    if code == 0 {
                        if !dump { return payloads }
                        continue
                    }
                    throw NetlinkError(code: Errno(rawValue: -code), what: "nl80211 command \(cmd)")
                default: payloads.append(ArraySlice(Array(m.payload)))
                }
            }
        }
    }

    /// The numeric id of a generic-netlink family ("nl80211").
    func familyID(_ name: String) throws(NetlinkError) -> UInt16 {
        let attrs = NL80211.attr(NL80211.CTRL_ATTR_FAMILY_NAME, Array(name.utf8) + [0])
        let answer = try transact(family: NL80211.GENL_ID_CTRL, cmd: NL80211.CTRL_CMD_GETFAMILY, dump: false,
                                  attributes: attrs)
        for payload in answer {
            if let a = NL80211.attributes(payload.dropFirst(4)),
               let id = a.first(where: { $0.type == NL80211.CTRL_ATTR_FAMILY_ID && $0.payload.count >= 2 }) {
                return NL80211.u16(id.payload, id.payload.startIndex)
            }
        }
        throw NetlinkError(code: .noSuchFileOrDirectory, what: "generic netlink family \(name)")
    }
}
