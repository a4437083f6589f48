import CHCI
import FPHCI
import Glibc
import SystemPackage

/// Linux HCI socket constants (linux/net/bluetooth/hci.h; mirrored in BlueZ's headers).
enum HCIConst {
    static let afBluetooth: Int32 = 31
    static let btprotoHCI: Int32 = 1
    static let solHCI: Int32 = 0
    static let hciFilter: Int32 = 2
    static let channelRaw: UInt16 = 0
    static let channelUser: UInt16 = 1
}

/// One HCI socket on one adapter. It only moves bytes; parsing is FPHCI's job.
/// Reads use poll with a timeout so loops can notice cancellation.
package final class HCISocket: @unchecked Sendable {
    package let fd: Int32
    package let device: UInt16
    package let exclusive: Bool

    /// The receive buffer asked for. The kernel charges each queued event its
    /// buffer's true size (about 1 KB for a short advertising report), so 3,000
    /// reports/s fill ~3 MB/s of buffer while the reader is stalled; 4 MB
    /// rides out a stall of about a second (`make bench` measures it).
    package static let requestedReceiveBufferBytes: Int32 = 4 << 20

    /// The receive buffer the kernel granted (what SO_RCVBUF reads back).
    package let receiveBufferBytes: Int

    /// Opens `hciN`: the raw channel (shared with bluetoothd, event filter) or,
    /// with `exclusive`, the user channel (adapter must be down).
    package init(device: UInt16, exclusive: Bool) throws(HCISocketError) {
        let name = "hci\(device)"
        let fd: Int32
        switch system_socket(HCIConst.afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), HCIConst.btprotoHCI) {
        case .success(let v): fd = v
        case .failure(let e): throw HCISocketError.from(e, "socket(AF_BLUETOOTH, BTPROTO_HCI)", device: name)
        }
        var addr = sockaddr_hci()
        addr.hci_family = sa_family_t(HCIConst.afBluetooth)
        addr.hci_dev = device
        addr.hci_channel = exclusive ? HCIConst.channelUser : HCIConst.channelRaw
        if case .failure(let e) = system_bind(fd, &addr) {
            system_close(fd)
            throw HCISocketError.from(e, "bind \(name)", device: name)
        }
        self.fd = fd
        self.device = device
        self.exclusive = exclusive
        receiveBufferBytes = Self.sizeReceiveBuffer(fd)
    }

    /// Adopts an open datagram socket that delivers H4 frames as an HCI
    /// socket does (one frame per read, drops when its receive queue is full):
    /// a UDP socket on loopback stands in for the kernel in benchmarks.
    package init(adopting fd: Int32, device: UInt16) {
        self.fd = fd
        self.device = device
        exclusive = false
        receiveBufferBytes = Self.sizeReceiveBuffer(fd)
    }

    /// SO_RCVBUF alone is capped at net.core.rmem_max (208 KB on Debian, so
    /// about 416 KB granted); SO_RCVBUFFORCE passes the cap with CAP_NET_ADMIN,
    /// which fprint's setcap line grants. Returns what the kernel granted.
    static func sizeReceiveBuffer(_ fd: Int32) -> Int {
        var size = requestedReceiveBufferBytes
        let length = socklen_t(MemoryLayout<Int32>.size)
        if case .failure = system_setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) {
            _ = system_setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, length)
        }
        var granted: Int32 = 0
        var grantedLength = length
        _ = system_getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &granted, &grantedLength)
        return Int(granted)
    }

    deinit { system_close(fd) }

    /// Lets HCI events through (all of them, or those in `events`); raw channel only.
    package func setFilter(events: [UInt8]? = nil) throws(HCISocketError) {
        guard !exclusive else { return }
        var f = hci_filter()
        f.type_mask = 1 << UInt32(H4Type.event.rawValue)
        if let events {
            for e in events { if e < 32 { f.event_mask.0 |= 1 << UInt32(e) } else if e < 64 { f.event_mask.1 |= 1 << UInt32(e - 32) } }
        } else {
            f.event_mask = (0xFFFF_FFFF, 0xFFFF_FFFF)
        }
        if case .failure(let e) = system_setsockopt(fd, HCIConst.solHCI, HCIConst.hciFilter, &f, socklen_t(MemoryLayout<hci_filter>.size)) {
            throw HCISocketError.from(e, "setsockopt HCI_FILTER", device: "hci\(device)")
        }
    }

    /// A socket filter saved to be put back.
    package struct SavedFilter: @unchecked Sendable { let value: hci_filter }

    /// The filter in place now, to restore on exit.
    package func currentFilter() -> SavedFilter? {
        guard !exclusive else { return nil }
        var f = hci_filter()
        var len = socklen_t(MemoryLayout<hci_filter>.size)
        guard case .success = system_getsockopt(fd, HCIConst.solHCI, HCIConst.hciFilter, &f, &len) else { return nil }
        return SavedFilter(value: f)
    }

    package func restoreFilter(_ saved: SavedFilter) {
        var f = saved.value
        _ = system_setsockopt(fd, HCIConst.solHCI, HCIConst.hciFilter, &f, socklen_t(MemoryLayout<hci_filter>.size))
    }

    /// Writes one H4 frame. An empty one goes to the kernel as it is (an HCI
    /// socket refuses it with EINVAL): the caller gets an error, never a crash.
    package func write(_ frame: [UInt8]) throws(HCISocketError) {
        let r = frame.withUnsafeBytes { system_write(fd, $0.baseAddress, $0.count) }
        if case .failure(let e) = r { throw HCISocketError.from(e, "write to hci\(device)", device: "hci\(device)") }
    }

    /// One H4 frame, or nil when nothing arrived within `timeoutMs`.
    package func read(timeoutMs: Int32) throws(HCISocketError) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        switch system_poll(&p, 1, timeoutMs) {
        case .success(0): return nil
        case .success: break
        case .failure(let e): throw HCISocketError.from(e, "poll hci\(device)", device: "hci\(device)")
        }
        var buf = [UInt8](repeating: 0, count: 1024)
        let n = buf.withUnsafeMutableBytes { system_read(fd, $0.baseAddress, $0.count) }
        switch n {
        // Nothing read after a hang-up is the end of the stream, not an empty frame.
        case .success(0) where p.revents & Int16(POLLHUP) != 0: throw .closed(device: "hci\(device)")
        case .success(let count): return Array(buf[0..<count])
        case .failure(.resourceTemporarilyUnavailable): return nil
        case .failure(let e): throw HCISocketError.from(e, "read hci\(device)", device: "hci\(device)")
        }
    }
}
