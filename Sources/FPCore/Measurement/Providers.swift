import Foundation

/// The radios a measurement can collect.
public enum Radio: String, CaseIterable, Codable, Sendable {
    case ble, wifi, cell, location

    /// The document key of the provider status and of the iOS `collect…Data` flag.
    public var label: String {
        switch self {
        case .ble: "BLE"
        case .wifi: "Wi-Fi"
        case .cell: "cellular"
        case .location: "GNSS"
        }
    }
}

/// One observation, timed in ms from the measurement start.
public enum Sample: Sendable, Equatable {
    case ble(BLEScan)
    case wifi(WiFiScan)
    // Boxed: an enum is as large as its largest case, and a cell (296 bytes)
    // or a fix (152) inline made every sample 296 bytes; a replay holds
    // 100,000s of BLE samples (168 bytes) and a handful of these.
    indirect case cell(CellScan)
    indirect case geo(GeoFix)

    public var time: Int {
        switch self {
        case .ble(let s): s.time
        case .wifi(let s): s.time
        case .cell(let s): s.time
        case .geo(let s): s.time
        }
    }

    public var radio: Radio {
        switch self {
        case .ble: .ble
        case .wifi: .wifi
        case .cell: .cell
        case .geo: .location
        }
    }
}

/// What a provider needs to know about the measurement it serves.
public struct CaptureContext: Sendable {
    public let clock: any MeasurementClock
    /// The surveyor's (or walk target's) map position at a time in ms.
    public let position: @Sendable (Int) -> MapPoint
    public let level: String
    /// Where BLE providers keep the raw HCI packets (`--keep-raw`); nil = not kept.
    public let rawHCI: RawHCILog?

    public init(clock: any MeasurementClock, level: String, rawHCI: RawHCILog? = nil,
                position: @escaping @Sendable (Int) -> MapPoint) {
        self.clock = clock
        self.level = level
        self.rawHCI = rawHCI
        self.position = position
    }
}

/// A source of samples for one radio: a real device, a replay or a simulation.
///
/// The engine calls `start`, then `advance(toMs:)` on every tick of the
/// measurement clock (simulations produce samples there; real providers
/// deliver from their own tasks and may ignore it), then `stop`.
public protocol RadioProvider: Sendable {
    var radio: Radio { get }
    /// ok, or unavailable with the reason; an unavailable provider is not advanced.
    func start(context: CaptureContext, sink: SampleSink) async -> ProviderStatus
    func advance(toMs ms: Int) async
    func stop() async
    /// After `stop`: the provider's final word when it differs from what `start`
    /// said (e.g. gpsd answered but never had a fix). nil keeps the start status.
    func finalStatus() async -> ProviderStatus?
}

extension RadioProvider {
    public func finalStatus() async -> ProviderStatus? { nil }
}

/// Motion sensor values at one instant; nil where the sensor is absent.
public struct MotionReading: Sendable, Equatable {
    public var acc: Vector3?
    public var gyro: Vector3?
    public var mag: Vector3?
    /// `ok` when at least one sensor was read, else `unavailable` with the reason.
    public var status: ProviderStatus

    public struct Vector3: Sendable, Equatable {
        public var x: Double, y: Double, z: Double
        public init(x: Double, y: Double, z: Double) {
            self.x = x
            self.y = y
            self.z = z
        }
    }

    public init(acc: Vector3? = nil, gyro: Vector3? = nil, mag: Vector3? = nil, status: ProviderStatus) {
        self.acc = acc
        self.gyro = gyro
        self.mag = mag
        self.status = status
    }
}

/// Reads the motion sensors once (the old apps stored their values at the end of a measurement).
public protocol MotionSensorReader: Sendable {
    func read() -> MotionReading
}

/// Device state captured once per document (DESIGN.md §3 iOS keys).
public struct DeviceSnapshot: Sendable, Equatable, Codable {
    public var deviceId: String
    public var hostname: String
    public var hardware: String
    public var osName: String
    public var osId: String
    public var batteryLevel: Double?
    public var batteryState: String
    public var status: ProviderStatus

    public init(deviceId: String, hostname: String, hardware: String, osName: String, osId: String,
                batteryLevel: Double?, batteryState: String, status: ProviderStatus) {
        self.deviceId = deviceId
        self.hostname = hostname
        self.hardware = hardware
        self.osName = osName
        self.osId = osId
        self.batteryLevel = batteryLevel
        self.batteryState = batteryState
        self.status = status
    }
}

public protocol DeviceInfoProvider: Sendable {
    func snapshot() -> DeviceSnapshot
}
