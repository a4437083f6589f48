/// The document's JSON keys and its Codable conformance: every key written
/// (`null` where a sensor had nothing to say); keys absent from an older or
/// foreign document decode to defaults.
extension MeasurementDocument {
    enum CodingKeys: String, CodingKey {
        case schemaVersion, type, mode, level, x, y, position, createdAt, startTime, endTime, durationMs, clock
        case deviceId, hostname, hardware, osName, osId, batteryLevel, batteryState
        case gyroX, gyroY, gyroZ, magX, magY, magZ, accX, accY, accZ
        case collectBluetoothData, collectWifiData, collectBtsData, collectGeolocationData
        case bleScans, wifiScans, cellScans, geolocation, providers, couchbase_sync_gateway_id
        case sessionId, seq, scenarioId, window, generator
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func get<T: Decodable>(_ k: CodingKeys, _ fallback: T) throws -> T { try c.decodeIfPresent(T.self, forKey: k) ?? fallback }
        schemaVersion = try get(.schemaVersion, 0)
        type = try get(.type, "scan")
        mode = try get(.mode, .static)
        level = try get(.level, "")
        x = try get(.x, 0)
        y = try get(.y, 0)
        position = try c.decodeIfPresent(Position.self, forKey: .position)
        createdAt = try get(.createdAt, "")
        startTime = try get(.startTime, "")
        endTime = try get(.endTime, "")
        durationMs = try get(.durationMs, 0)
        clock = try get(.clock, "monotonic")
        deviceId = try get(.deviceId, "")
        hostname = try c.decodeIfPresent(String.self, forKey: .hostname)
        hardware = try get(.hardware, "")
        osName = try get(.osName, "")
        osId = try get(.osId, "")
        batteryLevel = try c.decodeIfPresent(Double.self, forKey: .batteryLevel)
        batteryState = try get(.batteryState, "unknown")
        gyroX = try c.decodeIfPresent(Double.self, forKey: .gyroX)
        gyroY = try c.decodeIfPresent(Double.self, forKey: .gyroY)
        gyroZ = try c.decodeIfPresent(Double.self, forKey: .gyroZ)
        magX = try c.decodeIfPresent(Double.self, forKey: .magX)
        magY = try c.decodeIfPresent(Double.self, forKey: .magY)
        magZ = try c.decodeIfPresent(Double.self, forKey: .magZ)
        accX = try c.decodeIfPresent(Double.self, forKey: .accX)
        accY = try c.decodeIfPresent(Double.self, forKey: .accY)
        accZ = try c.decodeIfPresent(Double.self, forKey: .accZ)
        collectBluetoothData = try get(.collectBluetoothData, true)
        collectWifiData = try get(.collectWifiData, true)
        collectBtsData = try get(.collectBtsData, true)
        collectGeolocationData = try get(.collectGeolocationData, true)
        bleScans = try get(.bleScans, [])
        wifiScans = try get(.wifiScans, [])
        cellScans = try get(.cellScans, [])
        geolocation = try get(.geolocation, [])
        providers = try get(.providers, [:])
        couchbase_sync_gateway_id = try get(.couchbase_sync_gateway_id, MeasurementDocument.unsignedOwner)
        sessionId = try c.decodeIfPresent(String.self, forKey: .sessionId)
        seq = try c.decodeIfPresent(Int.self, forKey: .seq)
        scenarioId = try c.decodeIfPresent(String.self, forKey: .scenarioId)
        window = try c.decodeIfPresent(Window.self, forKey: .window)
        generator = try get(.generator, "")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(type, forKey: .type)
        try c.encode(mode, forKey: .mode)
        try c.encode(level, forKey: .level)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encodeIfPresent(position, forKey: .position)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(endTime, forKey: .endTime)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(clock, forKey: .clock)
        try c.encode(deviceId, forKey: .deviceId)
        try c.encodeIfPresent(hostname, forKey: .hostname)
        try c.encode(hardware, forKey: .hardware)
        try c.encode(osName, forKey: .osName)
        try c.encode(osId, forKey: .osId)
        // Sensor and battery keys are always present: null says "not measured".
        try c.encode(batteryLevel, forKey: .batteryLevel)
        try c.encode(batteryState, forKey: .batteryState)
        try c.encode(gyroX, forKey: .gyroX)
        try c.encode(gyroY, forKey: .gyroY)
        try c.encode(gyroZ, forKey: .gyroZ)
        try c.encode(magX, forKey: .magX)
        try c.encode(magY, forKey: .magY)
        try c.encode(magZ, forKey: .magZ)
        try c.encode(accX, forKey: .accX)
        try c.encode(accY, forKey: .accY)
        try c.encode(accZ, forKey: .accZ)
        try c.encode(collectBluetoothData, forKey: .collectBluetoothData)
        try c.encode(collectWifiData, forKey: .collectWifiData)
        try c.encode(collectBtsData, forKey: .collectBtsData)
        try c.encode(collectGeolocationData, forKey: .collectGeolocationData)
        try c.encode(bleScans, forKey: .bleScans)
        try c.encode(wifiScans, forKey: .wifiScans)
        try c.encode(cellScans, forKey: .cellScans)
        try c.encode(geolocation, forKey: .geolocation)
        try c.encode(providers, forKey: .providers)
        try c.encode(couchbase_sync_gateway_id, forKey: .couchbase_sync_gateway_id)
        try c.encodeIfPresent(sessionId, forKey: .sessionId)
        try c.encodeIfPresent(seq, forKey: .seq)
        try c.encodeIfPresent(scenarioId, forKey: .scenarioId)
        try c.encodeIfPresent(window, forKey: .window)
        try c.encode(generator, forKey: .generator)
    }
}
