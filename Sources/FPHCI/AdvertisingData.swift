import FPHex

/// The decoded AD structures of one advertisement (Core Supplement Part A).
package struct AdvertisingData: Sendable, Equatable {
    package var flags: UInt8?
    /// Complete name if present, else the shortened one.
    package var name: String?
    package var nameIsComplete = false
    package var txPowerLevel: Int8?
    /// Manufacturer specific data: company id (little-endian on air) and the rest.
    package var manufacturer: [Manufacturer] = []
    /// 16/32/128-bit service UUIDs as upper-case strings (`FEAA`, `0000FEAA`, `…-…`).
    package var serviceUUIDs: [String] = []
    package var serviceData: [ServiceData] = []
    /// Structures fprint does not decode: type and payload.
    package var other: [Structure] = []

    package struct Manufacturer: Sendable, Equatable {
        package var companyID: UInt16
        package var payload: [UInt8]
        package init(companyID: UInt16, payload: [UInt8]) { self.companyID = companyID; self.payload = payload }
    }

    package struct ServiceData: Sendable, Equatable {
        package var uuid: String
        package var payload: [UInt8]
        package init(uuid: String, payload: [UInt8]) { self.uuid = uuid; self.payload = payload }
    }

    package struct Structure: Sendable, Equatable {
        package var type: UInt8
        package var payload: [UInt8]
        package init(type: UInt8, payload: [UInt8]) { self.type = type; self.payload = payload }
    }

    /// AD type codes (Bluetooth Assigned Numbers 2.3).
    package enum ADType {
        package static let flags: UInt8 = 0x01
        package static let incomplete16: UInt8 = 0x02, complete16: UInt8 = 0x03
        package static let incomplete32: UInt8 = 0x04, complete32: UInt8 = 0x05
        package static let incomplete128: UInt8 = 0x06, complete128: UInt8 = 0x07
        package static let shortName: UInt8 = 0x08, completeName: UInt8 = 0x09
        package static let txPower: UInt8 = 0x0A
        package static let serviceData16: UInt8 = 0x16, serviceData32: UInt8 = 0x20, serviceData128: UInt8 = 0x21
        package static let manufacturer: UInt8 = 0xFF
    }

    package init() {}

    /// Decodes `length, type, payload` structures. A zero length byte is
    /// padding and is skipped (some stacks pad with zeros, also mid-data).
    /// Throws, with the offset, when a structure overruns the data or a
    /// fixed-size field has the wrong length.
    package init(bytes: ArraySlice<UInt8>) throws(HCIParseError) {
        var c = ByteCursor(bytes)
        while c.remaining > 0 {
            let start = c.offset
            let length = Int(try c.u8("AD length"))
            if length == 0 { continue }
            let body = try c.take(length, "AD structure")
            let type = body[body.startIndex]
            let payload = body.dropFirst()
            try decode(type: type, payload: payload, offset: start)
        }
    }

    package init(bytes: [UInt8]) throws(HCIParseError) { try self.init(bytes: bytes[...]) }

    private mutating func decode(type: UInt8, payload: ArraySlice<UInt8>, offset: Int) throws(HCIParseError) {
        switch type {
        case ADType.flags:
            guard let f = payload.first else { throw .truncated(what: "Flags", offset: offset, needed: 1, available: 0) }
            flags = f
        case ADType.shortName:
            if !nameIsComplete { name = String(decoding: payload, as: UTF8.self) }
        case ADType.completeName:
            name = String(decoding: payload, as: UTF8.self)
            nameIsComplete = true
        case ADType.txPower:
            guard payload.count == 1 else { throw .invalid(what: "TX Power Level length", offset: offset, value: payload.count) }
            txPowerLevel = Int8(bitPattern: payload[payload.startIndex])
        case ADType.incomplete16, ADType.complete16:
            try uuids(payload, width: 2, offset: offset)
        case ADType.incomplete32, ADType.complete32:
            try uuids(payload, width: 4, offset: offset)
        case ADType.incomplete128, ADType.complete128:
            try uuids(payload, width: 16, offset: offset)
        case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
            let width = type == ADType.serviceData16 ? 2 : type == ADType.serviceData32 ? 4 : 16
            guard payload.count >= width else {
                throw .truncated(what: "Service Data UUID", offset: offset, needed: width, available: payload.count)
            }
            let uuid = UUIDText.littleEndian(payload.prefix(width))
            serviceData.append(ServiceData(uuid: uuid, payload: Array(payload.dropFirst(width))))
        case ADType.manufacturer:
            guard payload.count >= 2 else {
                throw .truncated(what: "Manufacturer Specific Data company id", offset: offset, needed: 2, available: payload.count)
            }
            let i = payload.startIndex
            let company = UInt16(payload[i]) | UInt16(payload[i + 1]) << 8
            manufacturer.append(Manufacturer(companyID: company, payload: Array(payload.dropFirst(2))))
        default:
            other.append(Structure(type: type, payload: Array(payload)))
        }
    }

    private mutating func uuids(_ payload: ArraySlice<UInt8>, width: Int, offset: Int) throws(HCIParseError) {
        guard payload.count % width == 0 else {
            throw .invalid(what: "\(width * 8)-bit UUID list length", offset: offset, value: payload.count)
        }
        var i = payload.startIndex
        while i < payload.endIndex {
            serviceUUIDs.append(UUIDText.littleEndian(payload[i..<(i + width)]))
            i += width
        }
    }
}

/// UUID text forms.
package enum UUIDText {
    /// A little-endian (on-air) UUID as text: 16/32-bit as 4/8 hex digits,
    /// 128-bit in the canonical 8-4-4-4-12 form, upper case.
    package static func littleEndian(_ bytes: ArraySlice<UInt8>) -> String {
        text(bytes.reversed(), dashed: bytes.count == 16)
    }

    /// 16 big-endian bytes as `FB0B57A2-8228-44CD-913A-94A122BA1206`.
    package static func canonical(_ b: ArraySlice<UInt8>) -> String {
        text(b, dashed: true)
    }

    /// Upper-case hex written straight into the string's storage (one
    /// allocation; this runs for every service UUID of every report).
    static func text<C: Collection<UInt8>>(_ bytes: C, dashed: Bool) -> String {
        let count = bytes.count
        let dashes = dashed && count == 16 ? 4 : 0
        return String(unsafeUninitializedCapacity: count * 2 + dashes) { out in
            var i = 0
            for (k, b) in bytes.enumerated() {
                if dashes > 0 && (k == 4 || k == 6 || k == 8 || k == 10) {
                    out[i] = UInt8(ascii: "-")
                    i += 1
                }
                out[i] = Hex.upperDigits[Int(b >> 4)]
                out[i + 1] = Hex.upperDigits[Int(b & 0x0F)]
                i += 2
            }
            return i
        }
    }
}
