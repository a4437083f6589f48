import FPHCI
import Glibc
import SystemPackage

/// Why the kernel HCI socket could not be used; each maps to one CLI message and exit code.
package enum HCISocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kernel has no AF_BLUETOOTH (EAFNOSUPPORT): no bluetooth module, or a container/VM without it.
    case noBluetooth
    /// EPERM/EACCES: raw HCI needs CAP_NET_RAW (and CAP_NET_ADMIN for scan control).
    case permission(String)
    /// No such adapter (ENODEV).
    case noAdapter(String)
    /// The adapter exists but is down (ENETDOWN), or up when the user channel needs it down (EBUSY).
    case adapterDown(String)
    case adapterBusy(String)
    case noLE(String)
    /// The controller refused a command: its HCI status, for callers to switch on.
    case command(device: String, opcode: UInt16, status: UInt8)
    /// The controller never answered a command (`attempts` tries of `timeoutMs` each).
    case noAnswer(device: String, opcode: UInt16, attempts: Int, timeoutMs: Int32)
    /// The other end closed the socket (end of file); a kernel HCI socket never does this while its adapter lives.
    case closed(device: String)
    case system(String, Errno)

    package var description: String {
        switch self {
        case .noBluetooth: "this kernel has no Bluetooth sockets (AF_BLUETOOTH: EAFNOSUPPORT): load the bluetooth module (modprobe bluetooth) or run on a machine whose kernel has Bluetooth"
        case .permission(let op): "permission denied for \(op): raw HCI needs CAP_NET_RAW and CAP_NET_ADMIN; run as root or grant them once: sudo setcap cap_net_raw,cap_net_admin+eip $(which fprint)"
        case .noAdapter(let m), .adapterDown(let m), .adapterBusy(let m), .noLE(let m): m
        case let .command(device, opcode, status): Self.commandFailed(device: device, opcode: opcode, status: status)
        case let .noAnswer(device, opcode, attempts, timeoutMs):
            "\(device): no answer to \(HCICommand.name(opcode: opcode)) after \(attempts) tries of \(timeoutMs / 1000) s: the controller is not responding"
        case .closed(let device): "\(device): the socket was closed at the other end"
        case let .system(op, e): "\(op): \(e) (errno \(e.rawValue))"
        }
    }

    /// `hci0: LE Set Scan Enable failed: Command Disallowed (0x0C)` and, where
    /// there is one, what to do about it.
    static func commandFailed(device: String, opcode: UInt16, status: UInt8) -> String {
        var message = "\(device): \(HCICommand.name(opcode: opcode)) failed: \(HCIStatusCode.name(status))"
        if status == HCIStatusCode.commandDisallowed {
            message += "; another program (usually bluetoothd during discovery) is scanning: stop it (bluetoothctl scan off) or use --exclusive with the adapter down"
        }
        if status == HCIStatusCode.unknownCommand {
            message += "; the controller does not support it"
        }
        return message
    }

    static func from(_ e: Errno, _ op: String, device: String) -> HCISocketError {
        switch e {
        case .addressFamilyNotSupported, .protocolNotSupported: .noBluetooth
        case .notPermitted, .permissionDenied: .permission(op)
        case .operationNotSupportedByDevice: .noAdapter("no Bluetooth adapter \(device)")  // ENODEV
        case .networkDown: .adapterDown("adapter \(device) is down: bring it up (sudo hciconfig \(device) up, or bluetoothctl power on)")
        case .resourceBusy: .adapterBusy("adapter \(device) is in use: --exclusive needs it down (sudo hciconfig \(device) down; bluetoothd will lose it while fprint runs)")
        default: .system(op, e)
        }
    }
}
