import FPHex

/// HCI error codes by name (Core spec Vol 1 Part F), for messages people can act on.
package enum HCIStatusCode {
    package static let success: UInt8 = 0x00
    package static let unknownCommand: UInt8 = 0x01
    package static let commandDisallowed: UInt8 = 0x0C

    static let names: [UInt8: String] = [
        0x00: "Success", 0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier",
        0x03: "Hardware Failure", 0x04: "Page Timeout", 0x05: "Authentication Failure",
        0x06: "PIN or Key Missing", 0x07: "Memory Capacity Exceeded", 0x08: "Connection Timeout",
        0x09: "Connection Limit Exceeded", 0x0A: "Synchronous Connection Limit Exceeded",
        0x0B: "Connection Already Exists", 0x0C: "Command Disallowed",
        0x0D: "Connection Rejected due to Limited Resources", 0x0E: "Connection Rejected due to Security Reasons",
        0x0F: "Connection Rejected due to Unacceptable BD_ADDR", 0x10: "Connection Accept Timeout Exceeded",
        0x11: "Unsupported Feature or Parameter Value", 0x12: "Invalid HCI Command Parameters",
        0x13: "Remote User Terminated Connection", 0x1A: "Unsupported Remote Feature",
        0x1F: "Unspecified Error", 0x20: "Unsupported LMP Parameter Value", 0x22: "LMP Response Timeout",
        0x23: "LMP Error Transaction Collision", 0x24: "LMP PDU Not Allowed", 0x2A: "Different Transaction Collision",
        0x30: "Parameter Out of Mandatory Range", 0x3A: "Controller Busy",
        0x3B: "Unacceptable Connection Parameters", 0x3C: "Advertising Timeout", 0x3E: "Connection Failed to be Established",
        0x41: "Unknown Advertising Identifier", 0x42: "Limit Reached", 0x43: "Operation Cancelled by Host",
        0x45: "Packet Too Long",
    ]

    /// `Command Disallowed (0x0C)`.
    package static func name(_ code: UInt8) -> String {
        "\(names[code] ?? "Unknown Error") (0x\(Hex.byte(code)))"
    }
}
