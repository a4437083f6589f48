import CHCI
import Glibc
import SystemPackage

/// Every syscall on HCI sockets goes through these shims (swift-system
/// style), so errno handling and EINTR retries live in one place and errors
/// are swift-system's typed `Errno`.

/// -1 → the errno; EINTR retried when asked.
@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(retryOnInterrupt: Bool = true, _ body: () -> T) -> Result<T, Errno> {
    while true {
        let r = body()
        if r != -1 { return .success(r) }
        let e = Errno(rawValue: errno)
        if retryOnInterrupt && e == .interrupted { continue }
        return .failure(e)
    }
}

func system_socket(_ domain: Int32, _ type: Int32, _ proto: Int32) -> Result<Int32, Errno> {
    valueOrErrno { socket(domain, type, proto) }
}

/// Binds to a typed socket address (`sockaddr_hci`, …); its length is its type's size.
func system_bind<Address>(_ fd: Int32, _ address: inout Address) -> Result<Int32, Errno> {
    withUnsafePointer(to: &address) { typed in
        typed.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            valueOrErrno { bind(fd, generic, socklen_t(MemoryLayout<Address>.size)) }
        }
    }
}

func system_setsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeRawPointer, _ len: socklen_t) -> Result<Int32, Errno> {
    valueOrErrno { setsockopt(fd, level, name, value, len) }
}

func system_getsockopt(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: UnsafeMutableRawPointer, _ len: UnsafeMutablePointer<socklen_t>) -> Result<Int32, Errno> {
    valueOrErrno { getsockopt(fd, level, name, value, len) }
}

func system_ioctl(_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer) -> Result<Int32, Errno> {
    valueOrErrno { ioctl(fd, request, arg) }
}

func system_read(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Result<Int, Errno> {
    valueOrErrno { read(fd, buf, n) }
}

func system_write(_ fd: Int32, _ buf: UnsafeRawPointer?, _ n: Int) -> Result<Int, Errno> {
    valueOrErrno { write(fd, buf, n) }
}

func system_poll(_ fds: UnsafeMutablePointer<pollfd>, _ n: UInt, _ timeoutMs: Int32) -> Result<Int32, Errno> {
    valueOrErrno { poll(fds, n, timeoutMs) }
}

func system_close(_ fd: Int32) { _ = close(fd) }
