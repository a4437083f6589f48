/// H4 packet types: the byte that precedes every HCI packet on a UART, in
/// btsnoop 1002 files and on the Linux HCI socket.
public enum H4Type: UInt8, Sendable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}

/// An HCI event: its code and parameter bytes (a slice of the frame, not a copy).
public struct HCIEvent: Sendable {
    public let code: UInt8
    public let parameters: ArraySlice<UInt8>

    public static let commandComplete: UInt8 = 0x0E
    public static let commandStatus: UInt8 = 0x0F
    public static let leMeta: UInt8 = 0x3E

    /// Parses an event without the H4 byte: code, length, parameters.
    /// The length byte must match the bytes present exactly.
    public init(bytes: ArraySlice<UInt8>) throws(HCIParseError) {
        var c = ByteCursor(bytes)
        code = try c.u8("event code")
        let length = Int(try c.u8("event parameter length"))
        parameters = try c.take(length, "event parameters")
        if c.remaining > 0 { throw .trailing(what: "event parameters", offset: c.offset, count: c.remaining) }
    }

    public init(bytes: [UInt8]) throws(HCIParseError) { try self.init(bytes: bytes[...]) }

    /// Parses an H4 frame that must be an event (type byte 0x04 first).
    public init(h4 bytes: ArraySlice<UInt8>) throws(HCIParseError) {
        var c = ByteCursor(bytes)
        let type = try c.u8("H4 packet type")
        guard type == H4Type.event.rawValue else { throw .invalid(what: "H4 packet type (not an event)", offset: 0, value: Int(type)) }
        try self.init(bytes: bytes.dropFirst())
    }

    public init(h4 bytes: [UInt8]) throws(HCIParseError) { try self.init(h4: bytes[...]) }

    /// The event as an H4 frame, byte for byte what it was parsed from (the
    /// parsers demand an exact length byte): `04 <code> <length> <parameters>`.
    public var h4: [UInt8] {
        [H4Type.event.rawValue, code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }
}

/// Command Complete (0x0E): the controller's answer to a command, with its return parameters.
public struct CommandComplete: Sendable, Equatable {
    public let numHCICommandPackets: UInt8
    public let opcode: UInt16
    /// Return parameters; for almost every command the first byte is the status.
    public let returnParameters: [UInt8]

    public init(_ event: HCIEvent) throws(HCIParseError) {
        guard event.code == HCIEvent.commandComplete else { throw .invalid(what: "event code (not Command Complete)", offset: 0, value: Int(event.code)) }
        var c = ByteCursor(event.parameters, origin: event.parameters.startIndex - 2)
        numHCICommandPackets = try c.u8("Num_HCI_Command_Packets")
        opcode = try c.u16le("Command_Opcode")
        returnParameters = Array(event.parameters[c.position...])
    }

    /// The status byte, when the return parameters have one.
    public var status: UInt8? { returnParameters.first }
}

/// Command Status (0x0F): the controller accepted (or refused) a command that completes later.
public struct CommandStatus: Sendable, Equatable {
    public let status: UInt8
    public let numHCICommandPackets: UInt8
    public let opcode: UInt16

    public init(_ event: HCIEvent) throws(HCIParseError) {
        guard event.code == HCIEvent.commandStatus else { throw .invalid(what: "event code (not Command Status)", offset: 0, value: Int(event.code)) }
        var c = ByteCursor(event.parameters, origin: event.parameters.startIndex - 2)
        status = try c.u8("Status")
        numHCICommandPackets = try c.u8("Num_HCI_Command_Packets")
        opcode = try c.u16le("Command_Opcode")
        if c.remaining > 0 { throw .trailing(what: "Command Status", offset: c.offset, count: c.remaining) }
    }
}

/// LE Meta subevent codes fprint reads.
public enum LESubevent {
    public static let advertisingReport: UInt8 = 0x02
    public static let extendedAdvertisingReport: UInt8 = 0x0D
}
