import Foundation
import Testing

/// A socket of `type` bound to 127.0.0.1 on a port the kernel picks, and
/// the address it got: a real descriptor for the read-loop tests.
func loopbackSocket(_ type: __socket_type) throws -> (fd: Int32, address: sockaddr_in) {
    let fd = socket(AF_INET, Int32(type.rawValue), 0)
    try #require(fd >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    try #require(bound)
    return (fd, address)
}
