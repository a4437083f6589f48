/// The measurement document: one per static measurement or per walk window.
///
/// Key names follow the earlier apps so their tools keep reading the data
/// (DESIGN.md §3): evaluator keys (`x`, `y`, `level`, `bleScans`, `wifiScans`,
/// `cellScans`), Android keys (`type`, `deviceId`, `createdAt`) and iOS keys
/// (`startTime`, `hardware`, `battery…`, `gyro…`, `collect…Data`, owner id).
/// Decoding is lenient (older documents lack most keys); encoding is complete
/// and stable, with `null` where a sensor had nothing to say.
public struct MeasurementDocument: Codable, Sendable, Equatable {
    public static let schemaVersion = 1
    /// The member naming a document's owner (Couchbase Sync Gateway's name,
    /// kept so the earlier apps' documents and gateways agree).
    public static let ownerKey = "couchbase_sync_gateway_id"
    public static let unsignedOwner = "-"

    public enum Mode: String, Codable, Sendable, CaseIterable { case `static`, walk }

    public var schemaVersion: Int = MeasurementDocument.schemaVersion
    public var type: String = "scan"
    public var mode: Mode = .static
    /// Map id, e.g. `J1NP`.
    public var level: String = ""
    /// Whole map units: the evaluator reads integers. `position` keeps the exact value.
    public var x: Int = 0
    public var y: Int = 0
    public var position: Position?
    public var createdAt: String = ""
    public var startTime: String = ""
    public var endTime: String = ""
    public var durationMs: Int = 0
    /// `monotonic` for real time, `virtual` when a simulation ran faster than real time.
    public var clock: String = "monotonic"
    public var deviceId: String = ""
    public var hostname: String?
    public var hardware: String = ""
    public var osName: String = "Linux"
    public var osId: String = ""
    public var batteryLevel: Double?
    public var batteryState: String = "unknown"
    public var gyroX: Double?, gyroY: Double?, gyroZ: Double?
    public var magX: Double?, magY: Double?, magZ: Double?
    public var accX: Double?, accY: Double?, accZ: Double?
    public var collectBluetoothData = true
    public var collectWifiData = true
    public var collectBtsData = true
    public var collectGeolocationData = true
    public var bleScans: [BLEScan] = []
    public var wifiScans: [WiFiScan] = []
    public var cellScans: [CellScan] = []
    public var geolocation: [GeoFix] = []
    /// Per provider (`ble`, `wifi`, `cell`, `location`, `device`, `sensors`): ok or unavailable, and why.
    public var providers: [String: ProviderStatus] = [:]
    /// The owner, `-` until signed at sync.
    public var couchbase_sync_gateway_id: String = MeasurementDocument.unsignedOwner
    // Walk documents only.
    public var sessionId: String?
    public var seq: Int?
    public var scenarioId: String?
    public var window: Window?
    public var generator: String = "fprint"

    public init() {}

    /// The exact (unrounded) position and how it was obtained.
    public struct Position: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        /// `surveyed` for a static point; for walks the interpolation rule.
        public var rule: String
        public var atMs: Int?
        public init(x: Double, y: Double, rule: String, atMs: Int? = nil) {
            self.x = x
            self.y = y
            self.rule = rule
            self.atMs = atMs
        }
    }

    /// A walk document's time window, relative to the walk's start and absolute.
    public struct Window: Codable, Sendable, Equatable {
        public var startMs: Int
        public var endMs: Int
        public var start: String
        public var end: String
        public init(startMs: Int, endMs: Int, start: String, end: String) {
            self.startMs = startMs
            self.endMs = endMs
            self.start = start
            self.end = end
        }
    }
}

/// One BLE advertising report. `time` is ms from the measurement start.
public struct BLEScan: Codable, Sendable, Equatable {
    public var address: String
    public var addressType: String?
    /// dBm; nil when the controller reported "not available" (127).
    public var rssi: Int?
    public var time: Int
    public var name: String?
    public var eventType: String?
    public var txPower: Int?
    /// Held in a box: most reports carry none, and inline it took ~190 of
    /// the entry's ~350 bytes; a replay holds 100,000s of entries.
    public var beacon: Beacon? {
        get { boxedBeacon?.value }
        set { boxedBeacon = newValue.map(BeaconBox.init) }
    }
    var boxedBeacon: BeaconBox?
    /// Company id of the first manufacturer-specific data (e.g. 76 = Apple).
    public var companyId: Int?
    /// Advertised 16/32/128-bit service UUIDs (upper-case hex / canonical form).
    public var serviceUuids: [String]?
    /// The raw advertising data (AD structures), lower-case hex: nothing heard is thrown away.
    public var data: String?
    /// Controller index for replays of multi-controller (btmon) captures.
    public var controller: Int?

    public init(address: String, addressType: String? = nil, rssi: Int?, time: Int, name: String? = nil,
                eventType: String? = nil, txPower: Int? = nil, beacon: Beacon? = nil) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.time = time
        self.name = name
        self.eventType = eventType
        self.txPower = txPower
        self.beacon = beacon
    }
}

/// A decoded beacon identity (iBeacon, Eddystone UID/URL/TLM, AltBeacon).
public struct Beacon: Codable, Sendable, Equatable {
    public var type: String
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    public var measuredPower: Int?
    public var namespace: String?
    public var instance: String?
    public var url: String?
    /// AltBeacon's manufacturer id.
    public var companyId: Int?
    /// Eddystone-TLM telemetry.
    public var batteryMilliVolts: Int?
    public var temperature: Double?
    public var advertisingCount: Int?
    public var uptimeTenths: Int?

    public init(type: String, uuid: String? = nil, major: Int? = nil, minor: Int? = nil, measuredPower: Int? = nil,
                namespace: String? = nil, instance: String? = nil, url: String? = nil) {
        self.type = type
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
        self.namespace = namespace
        self.instance = instance
        self.url = url
    }
}

/// One BSS seen in a Wi-Fi scan.
public struct WiFiScan: Codable, Sendable, Equatable {
    public var mac: String
    /// The SSID as text; bytes that are not printable UTF-8 are escaped as `\xNN` (and `\` as `\\`).
    public var ssid: String
    public var rssi: Int
    /// When the BSS was last heard, in ms from the measurement start (its beacon or probe response).
    public var time: Int
    public var frequency: Int?
    public var channel: Int?
    /// How old the kernel's entry was when it was read (ms); cached results carry their age.
    public var ageMs: Int?
    /// True for the BSS this host is associated with (the old apps' "connected network").
    public var associated: Bool?

    public init(mac: String, ssid: String, rssi: Int, time: Int, frequency: Int? = nil, channel: Int? = nil,
                ageMs: Int? = nil, associated: Bool? = nil) {
        self.mac = mac
        self.ssid = ssid
        self.rssi = rssi
        self.time = time
        self.frequency = frequency
        self.channel = channel
        self.ageMs = ageMs
        self.associated = associated
    }
}

/// One cellular cell (serving or neighbour).
public struct CellScan: Codable, Sendable, Equatable {
    public var rssi: Int?
    public var time: Int
    /// Access technology: `gsm`, `umts`, `lte`, `nr` (absent in iOS-era documents).
    public var type: String?
    public var cid: Int?
    public var lac: Int?
    public var psc: Int?
    public var mcc: String?
    public var mnc: String?
    public var serving: Bool?
    /// LTE/NR tracking area code.
    public var tac: Int?
    /// Physical cell id (LTE PCI, NR PCI).
    public var pci: Int?
    /// Channel number: EARFCN (LTE), UARFCN (UMTS), ARFCN (GSM), NR-ARFCN.
    public var earfcn: Int?
    /// dBm / dB as the modem reports them (ModemManager's signal interface).
    public var rsrp: Double?
    public var rsrq: Double?
    public var sinr: Double?
    /// The registered network's name and whether it is roaming (serving cell only).
    public var operatorName: String?
    public var roaming: Bool?
    /// The SIM's home network (serving cell only).
    public var homeMcc: String?
    public var homeMnc: String?
    /// The modem's own access-technology words, e.g. `lte` or `umts, hsdpa`.
    public var accessTechnology: String?

    public init(rssi: Int?, time: Int, type: String?, cid: Int? = nil, lac: Int? = nil, psc: Int? = nil,
                mcc: String? = nil, mnc: String? = nil, serving: Bool? = nil) {
        self.rssi = rssi
        self.time = time
        self.type = type
        self.cid = cid
        self.lac = lac
        self.psc = psc
        self.mcc = mcc
        self.mnc = mnc
        self.serving = serving
    }
}

/// One GNSS fix.
public struct GeoFix: Codable, Sendable, Equatable {
    public var lat: Double
    public var long: Double
    public var time: Int
    public var alt: Double?
    /// Horizontal error estimate in metres (gpsd `eph`, else the larger of `epx`/`epy`).
    public var accuracy: Double?
    /// NMEA fix mode: 2 = 2D, 3 = 3D.
    public var fixMode: Int?
    /// Satellites used in the solution and seen, from the receiver's latest sky view.
    public var satellitesUsed: Int?
    public var satellitesVisible: Int?
    /// Metres per second and degrees from true north.
    public var speed: Double?
    public var track: Double?
    /// The receiver's own UTC time of the fix (ISO-8601).
    public var fixTime: String?

    public init(lat: Double, long: Double, time: Int, alt: Double? = nil, accuracy: Double? = nil) {
        self.lat = lat
        self.long = long
        self.time = time
        self.alt = alt
        self.accuracy = accuracy
    }
}

/// Whether a provider delivered data, and if not, why: missing data is never silent.
public struct ProviderStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case ok, unavailable, disabled }
    public var status: State
    /// Where samples came from: `simulated:<environment>`, `hci:hci0`, `sysfs`, …
    public var source: String
    public var simulated: Bool
    public var reason: String?
    public var samples: Int?
    /// True when samples are replayed from a recording (e.g. a btsnoop file), not heard live.
    public var replay: Bool?
    /// Input the provider could not decode and skipped (e.g. malformed HCI events).
    public var malformed: Int?
    /// BLE: reports whose advertising data did not decode; each is still stored, its data raw.
    public var adErrors: Int?
    /// A simulated source's seed: `--seed` with it repeats the measurement exactly.
    public var seed: UInt64?
    /// A simulated source's building: `realistic` (lasting shadowing, another
    /// device, aged beacons, walls) or `ideal` (the propagation law alone).
    public var model: String?

    public init(status: State, source: String, simulated: Bool = false, reason: String? = nil, samples: Int? = nil) {
        self.status = status
        self.source = source
        self.simulated = simulated
        self.reason = reason
        self.samples = samples
    }

    public static func disabled(_ source: String = "none") -> ProviderStatus {
        ProviderStatus(status: .disabled, source: source, reason: "turned off for this measurement")
    }
}
