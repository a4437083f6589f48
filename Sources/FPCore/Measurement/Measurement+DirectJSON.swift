/// BLE entries build their JSON directly: a document holds one per
/// advertising report, thousands per walk window. Members are appended in
/// canonical key order (JSONObject checks it); `DirectJSONTests` pins both
/// types to their Codable encoding and fails when a property is added here
/// but not there.
extension BLEScan: DirectJSONEncodable {
    public var jsonValue: JSONValue {
        var m: [JSONObject.Member] = []
        m.reserveCapacity(12)
        m.append(("address", .string(address)))
        if let addressType { m.append(("addressType", .string(addressType))) }
        if let beacon { m.append(("beacon", beacon.jsonValue)) }
        if let companyId { m.append(("companyId", .int(Int64(companyId)))) }
        if let controller { m.append(("controller", .int(Int64(controller)))) }
        if let data { m.append(("data", .string(data))) }
        if let eventType { m.append(("eventType", .string(eventType))) }
        if let name { m.append(("name", .string(name))) }
        if let rssi { m.append(("rssi", .int(Int64(rssi)))) }
        if let serviceUuids { m.append(("serviceUuids", .array(serviceUuids.map { .string($0) }))) }
        m.append(("time", .int(Int64(time))))
        if let txPower { m.append(("txPower", .int(Int64(txPower)))) }
        return .object(JSONObject(members: m))
    }
}

extension Beacon: DirectJSONEncodable {
    public var jsonValue: JSONValue {
        var m: [JSONObject.Member] = []
        if let advertisingCount { m.append(("advertisingCount", .int(Int64(advertisingCount)))) }
        if let batteryMilliVolts { m.append(("batteryMilliVolts", .int(Int64(batteryMilliVolts)))) }
        if let companyId { m.append(("companyId", .int(Int64(companyId)))) }
        if let instance { m.append(("instance", .string(instance))) }
        if let major { m.append(("major", .int(Int64(major)))) }
        if let measuredPower { m.append(("measuredPower", .int(Int64(measuredPower)))) }
        if let minor { m.append(("minor", .int(Int64(minor)))) }
        if let namespace { m.append(("namespace", .string(namespace))) }
        if let temperature { m.append(("temperature", .double(temperature))) }
        m.append(("type", .string(type)))
        if let uptimeTenths { m.append(("uptimeTenths", .int(Int64(uptimeTenths)))) }
        if let url { m.append(("url", .string(url))) }
        if let uuid { m.append(("uuid", .string(uuid))) }
        return .object(JSONObject(members: m))
    }
}
