/// H4 packet types: the byte that precedes every HCI packet on a UART, in
/// btsnoop 1002 files and on the Linux HCI socket.
package enum H4Type: UInt8, Sendable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}

/// An HCI event: its code and parameter bytes (a slice of the frame, not a copy).
package struct HCIEvent: Sendable {
    package let code: UInt8
    package let parameters: ArraySlice<UInt8>

    package static let commandComplete: UInt8 = 0x0E
    package static let commandStatus: UInt8 = 0x0F
    package static let leMeta: UInt8 = 0x3E

    /// Parses an event without the H4 byte: code, length, parameters.
    /// The length byte must match the bytes present exactly.
    package init(bytes: ArraySlice<UInt8>) throws(HCIParseError) {
        var c = ByteCursor(bytes)
        code = try c.u8("event code")
        let length = Int(try c.u8("event parameter length"))
        parameters = try c.take(length, "event parameters")
        if c.remaining > 0 { throw .trailing(what: "event parameters", offset: c.offset, count: c.remaining) }
    }

    package init(bytes: [UInt8]) throws(HCIParseError) { try self.init(bytes: bytes[...]) }

    /// Parses an H4 frame that must be an event (type byte 0x04 first).
    package init(h4 bytes: ArraySlice<UInt8>) throws(HCIParseError) {
        var c = ByteCursor(bytes)
        let type = try c.u8("H4 packet type")
        guard type == H4Type.event.rawValue else { throw .invalid(what: "H4 packet type (not an event)", offset: 0, value: Int(type)) }
        try self.init(bytes: bytes.dropFirst())
    }

    package init(h4 bytes: [UInt8]) throws(HCIParseError) { try self.init(h4: bytes[...]) }

    /// The event as an H4 frame, byte for byte what it was parsed from (the
    /// parsers demand an exact length byte): `04 <code> <length> <parameters>`.
    package var h4: [UInt8] {
        [H4Type.event.rawValue, code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }
}

/// Command Complete (0x0E): the controller's answer to a command, with its return parameters.
package struct CommandComplete: Sendable, Equatable {
    package let numHCICommandPackets: UInt8
    package let opcode: UInt16
    /// Return parameters; for almost every command the first byte is the status.
    package let returnParameters: [UInt8]

    package init(_ event: HCIEvent) throws(HCIParseError) {
        guard event.code == HCIEvent.commandComplete else { throw .invalid(what: "event code (not Command Complete)", offset: 0, value: Int(event.code)) }
        var c = ByteCursor(event.parameters, origin: event.parameters.startIndex - 2)
        numHCICommandPackets = try c.u8("Num_HCI_Command_Packets")
        opcode = try c.u16le("Command_Opcode")
        returnParameters = Array(event.parameters[c.position...])
    }

    /// The status byte, when the return parameters have one.
    package var status: UInt8? { returnParameters.first }
}

/// Command Status (0x0F): the controller accepted (or refused) a command that completes later.
package struct CommandStatus: Sendable, Equatable {
    package let status: UInt8
    package let numHCICommandPackets: UInt8
    package let opcode: UInt16

    package init(_ event: HCIEvent) throws(HCIParseError) {
        guard event.code == HCIEvent.commandStatus else { throw .invalid(what: "event code (not Command Status)", offset: 0, value: Int(event.code)) }
        var c = ByteCursor(event.parameters, origin: event.parameters.startIndex - 2)
        status = try c.u8("Status")
        numHCICommandPackets = try c.u8("Num_HCI_Command_Packets")
        opcode = try c.u16le("Command_Opcode")
        if c.remaining > 0 { throw .trailing(what: "Command Status", offset: c.offset, count: c.remaining) }
    }
}

/// LE Meta subevent codes fprint reads.
package enum LESubevent {
    package static let advertisingReport: UInt8 = 0x02
    package static let extendedAdvertisingReport: UInt8 = 0x0D
}
