/// An immutable beacon behind a reference: entries that share one share
/// it, and `BLEScan` stays small (see `BLEScan.beacon`).
final class BeaconBox: Sendable, Equatable {
    let value: Beacon
    init(_ value: Beacon) { self.value = value }
    static func == (a: BeaconBox, b: BeaconBox) -> Bool { a === b || a.value == b.value }
}

/// The Codable form the compiler would write for the stored properties
/// (`beacon` is a computed one over its box): the same keys, absent for nil.
/// `DirectJSONTests` pins it to `jsonValue`.
extension BLEScan {
    enum CodingKeys: String, CodingKey {
        case address, addressType, rssi, time, name, eventType, txPower, beacon, companyId, serviceUuids, data, controller
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(address: try c.decode(String.self, forKey: .address),
                  addressType: try c.decodeIfPresent(String.self, forKey: .addressType),
                  rssi: try c.decodeIfPresent(Int.self, forKey: .rssi), time: try c.decode(Int.self, forKey: .time),
                  name: try c.decodeIfPresent(String.self, forKey: .name),
                  eventType: try c.decodeIfPresent(String.self, forKey: .eventType),
                  txPower: try c.decodeIfPresent(Int.self, forKey: .txPower),
                  beacon: try c.decodeIfPresent(Beacon.self, forKey: .beacon))
        companyId = try c.decodeIfPresent(Int.self, forKey: .companyId)
        serviceUuids = try c.decodeIfPresent([String].self, forKey: .serviceUuids)
        data = try c.decodeIfPresent(String.self, forKey: .data)
        controller = try c.decodeIfPresent(Int.self, forKey: .controller)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(address, forKey: .address)
        try c.encodeIfPresent(addressType, forKey: .addressType)
        try c.encodeIfPresent(rssi, forKey: .rssi)
        try c.encode(time, forKey: .time)
        try c.encodeIfPresent(name, forKey: .name)
        try c.encodeIfPresent(eventType, forKey: .eventType)
        try c.encodeIfPresent(txPower, forKey: .txPower)
        try c.encodeIfPresent(beacon, forKey: .beacon)
        try c.encodeIfPresent(companyId, forKey: .companyId)
        try c.encodeIfPresent(serviceUuids, forKey: .serviceUuids)
        try c.encodeIfPresent(data, forKey: .data)
        try c.encodeIfPresent(controller, forKey: .controller)
    }
}
