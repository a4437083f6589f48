import FPHex

/// HCI commands fprint sends, encoded as H4 frames (pure: no I/O).
package struct HCICommand: Sendable, Equatable {
    package let opcode: UInt16
    package let parameters: [UInt8]

    package init(_ opcode: UInt16, _ parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// `01 <opcode LE> <length> <parameters>`.
    package var h4: [UInt8] {
        [H4Type.command.rawValue, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    package var name: String { Self.name(opcode: opcode) }

    /// `LE Set Scan Enable`, or `command 0x200C` for opcodes without a name here.
    package static func name(opcode: UInt16) -> String {
        names[opcode] ?? advertisingNames[opcode] ?? "command 0x\(Hex.byte(UInt8(opcode >> 8)))\(Hex.byte(UInt8(opcode & 0xFF)))"
    }

    package enum Opcode {
        package static let readLocalVersion: UInt16 = 0x1001
        package static let readLocalFeatures: UInt16 = 0x1003
        package static let leReadLocalFeatures: UInt16 = 0x2003
        package static let leSetScanParameters: UInt16 = 0x200B
        package static let leSetScanEnable: UInt16 = 0x200C
        package static let leSetExtendedScanParameters: UInt16 = 0x2041
        package static let leSetExtendedScanEnable: UInt16 = 0x2042
    }

    static let names: [UInt16: String] = [
        Opcode.readLocalVersion: "Read Local Version Information",
        Opcode.readLocalFeatures: "Read Local Supported Features",
        Opcode.leReadLocalFeatures: "LE Read Local Supported Features",
        Opcode.leSetScanParameters: "LE Set Scan Parameters",
        Opcode.leSetScanEnable: "LE Set Scan Enable",
        Opcode.leSetExtendedScanParameters: "LE Set Extended Scan Parameters",
        Opcode.leSetExtendedScanEnable: "LE Set Extended Scan Enable",
    ]

    /// Scan parameters; interval and window in 0.625 ms units.
    package struct ScanParameters: Sendable, Equatable {
        package var active: Bool
        package var interval: UInt16
        package var window: UInt16
        package init(active: Bool, interval: UInt16 = 0x0010, window: UInt16 = 0x0010) {
            self.active = active
            self.interval = interval
            self.window = window
        }
    }

    package static func setScanParameters(_ p: ScanParameters) -> HCICommand {
        HCICommand(Opcode.leSetScanParameters, [p.active ? 1 : 0] + le16(p.interval) + le16(p.window) + [0x00, 0x00])
    }

    /// Duplicate filtering is always off: every report is a sample.
    package static func setScanEnable(_ on: Bool) -> HCICommand {
        HCICommand(Opcode.leSetScanEnable, [on ? 1 : 0, 0x00])
    }

    /// Extended scanning on the 1M PHY with the same parameters.
    package static func setExtendedScanParameters(_ p: ScanParameters) -> HCICommand {
        HCICommand(Opcode.leSetExtendedScanParameters,
                   [0x00, 0x00, 0x01, p.active ? 1 : 0] + le16(p.interval) + le16(p.window))
    }

    package static func setExtendedScanEnable(_ on: Bool) -> HCICommand {
        HCICommand(Opcode.leSetExtendedScanEnable, [on ? 1 : 0, 0x00, 0x00, 0x00, 0x00, 0x00])
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}

/// Read Local Version Information's return parameters.
package struct LocalVersion: Sendable, Equatable {
    package let hciVersion: UInt8
    package let manufacturer: UInt16

    package init(returnParameters p: [UInt8]) throws(HCIParseError) {
        guard p.count >= 9 else { throw .truncated(what: "Read Local Version return parameters", offset: 0, needed: 9, available: p.count) }
        hciVersion = p[1]
        manufacturer = UInt16(p[5]) | UInt16(p[6]) << 8
    }

    /// Company names of common controller makers (Bluetooth assigned numbers).
    package static func manufacturerName(_ id: UInt16) -> String {
        let known: [UInt16: String] = [
            0x0000: "Ericsson", 0x0002: "Intel", 0x000A: "Qualcomm (CSR)", 0x000D: "Texas Instruments",
            0x000F: "Broadcom", 0x001D: "Qualcomm", 0x0046: "MediaTek", 0x0059: "Nordic Semiconductor",
            0x005D: "Realtek", 0x0131: "Cypress", 0x0310: "Infineon", 0x05F1: "The Linux Foundation",
            0x0602: "BlueZ emulator",
        ]
        return "\(known[id] ?? "company") (\(id))"
    }
}
