import Glibc
import SystemPackage

/// How a read loop treats a failed read of an HCI socket.
package enum HCIReadFault: Sendable, Equatable {
    /// Nothing is wrong (EINTR, EAGAIN): read again at once.
    case transient
    /// The adapter is gone (unplugged, powered down, driver unloaded, socket
    /// closed): no later read can succeed, so the source ends here.
    case vanished
    /// Anything else: it may clear up, so it is retried after a pause and reported.
    case persistent
}

extension HCISocketError {
    /// Errnos that mean the adapter is gone. When an adapter is unregistered
    /// the kernel fails its sockets' reads with EPIPE once and then reads
    /// nothing ever again, so EPIPE must end the source too; EBADFD is what a
    /// socket left without its device answers; EBADF a descriptor closed under us.
    static let vanishedErrnos: Set<Errno> = [
        .operationNotSupportedByDevice /* ENODEV */, .noSuchAddressOrDevice, .badFileDescriptor,
        Errno(rawValue: EBADFD) /* Linux only, not named by swift-system */, .networkDown, .brokenPipe, .socketShutdown,
    ]

    package var readFault: HCIReadFault {
        switch self {
        case .noAdapter, .adapterDown, .closed: .vanished
        case .system(_, let e) where Self.vanishedErrnos.contains(e): .vanished
        case .system(_, .interrupted), .system(_, .resourceTemporarilyUnavailable): .transient  // EWOULDBLOCK is EAGAIN
        case .noBluetooth, .permission, .adapterBusy, .noLE, .command, .noAnswer, .system: .persistent
        }
    }
}
