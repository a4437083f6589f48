import FPCore
import Foundation
@testable import FPProviders

/// The repository root, found from this file's path (Tests/FPProvidersTests/Support.swift).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func shippedEnvironmentPath(_ map: String) -> String {
    repositoryRoot.appendingPathComponent("Config/environments/\(map).json").path
}

/// A small valid environment document that test cases edit.
let baseEnvironmentJSON: JSONValue = [
    "map": "T1",
    "scale": ["meters": 45, "units": 2250],
    "propagation": ["pathLossExponent": 2.0, "shadowingSigmaDb": 0, "sensitivityDbm": -100],
    "geo": ["originLat": 50.2, "originLong": 15.8, "accuracyM": 5],
    "ble": [
        ["address": "C5:D5:21:51:D7:90", "x": 100, "y": 100, "measuredPower": -66, "intervalMs": 100,
         "beacon": ["type": "ibeacon", "uuid": "B9407F30-F5F8-466E-AFF9-25556B57FE6D", "major": 1, "minor": 2]],
        ["address": "C5:D5:21:51:D7:91", "x": 200, "y": 100, "measuredPower": -66, "intervalMs": 100],
    ],
    "wifi": [
        ["mac": "02:00:00:00:00:01", "ssid": "eduroam", "x": 0, "y": 0, "frequency": 2437, "rssiAt1m": -35],
        ["mac": "02:00:00:00:00:02", "ssid": "eduroam", "x": 0, "y": 0, "frequency": 5180, "rssiAt1m": -40],
    ],
    "cell": [
        ["type": "lte", "cid": 1, "lac": 2, "psc": 3, "mcc": "230", "mnc": "01", "serving": true,
         "x": -10000, "y": 0, "rssiAt1m": -30],
        ["type": "lte", "cid": 2, "lac": 2, "mcc": "230", "mnc": "01", "x": 10000, "y": 0, "rssiAt1m": -35],
    ],
]

/// Returns `json` with the value at a dotted path ("ble.0.x") replaced, or removed when `value` is nil.
func editing(_ json: JSONValue, _ path: String, _ value: JSONValue?) -> JSONValue {
    func edit(_ node: JSONValue, _ keys: ArraySlice<Substring>) -> JSONValue? {
        guard let key = keys.first else { return value }
        switch node {
        case .object(var members):
            let child = members[String(key)] ?? .null
            members[String(key)] = edit(child, keys.dropFirst())
            return .object(members)
        case .array(var items):
            guard let i = Int(key), items.indices.contains(i) else { return node }
            if let v = edit(items[i], keys.dropFirst()) { items[i] = v } else { items.remove(at: i) }
            return .array(items)
        default:
            return node
        }
    }
    return edit(json, path.split(separator: ".")[...]) ?? json
}

func environment(_ json: JSONValue, source: String = "T1.json") throws -> RadioEnvironment {
    try RadioEnvironment(data: CanonicalJSON.data(json), source: source)
}

/// A one-transmitter-per-radio environment for model tests.
func simpleEnvironment(sigma: Double = 4, sensitivity: Double = -200, ble: [RadioEnvironment.BLETransmitter]? = nil,
                       geo: RadioEnvironment.GeoAnchor? = nil) -> RadioEnvironment {
    RadioEnvironment(
        map: "T1", source: "T1.json",
        propagation: .init(pathLossExponent: 2, shadowingSigmaDb: sigma, sensitivityDbm: sensitivity),
        geo: geo ?? .init(originLat: 50.2, originLong: 15.8, accuracyM: 5, altM: 240),
        ble: ble ?? [
            .init(address: "C5:D5:21:51:D7:90", addressType: "random", position: MapPoint(x: 0, y: 0), measuredPower: -66,
                  intervalMs: 100, beacon: Beacon(type: "ibeacon", uuid: "B9407F30-F5F8-466E-AFF9-25556B57FE6D",
                                                  major: 1, minor: 2, measuredPower: -66)),
            .init(address: "11:22:33:44:55:66", position: MapPoint(x: 500, y: 0), measuredPower: -60, intervalMs: 250,
                  name: "sensor"),
        ],
        wifi: [
            .init(mac: "02:00:00:00:00:01", ssid: "eduroam", position: MapPoint(x: 0, y: 0), frequency: 2437, rssiAt1m: -35),
            .init(mac: "02:00:00:00:00:02", ssid: "UHK-guest", position: MapPoint(x: 0, y: 0), frequency: 5180, rssiAt1m: -40),
        ],
        cells: [
            .init(type: "lte", cid: 2, lac: 7, psc: 12, mcc: "230", mnc: "01", position: MapPoint(x: 20000, y: 0), rssiAt1m: -30),
            .init(type: "lte", cid: 1, lac: 7, psc: 11, mcc: "230", mnc: "01", serving: true,
                  position: MapPoint(x: -10000, y: 0), rssiAt1m: -25),
        ])
}

/// Runs providers on a virtual clock, advancing to each tick; returns the statuses and
/// the samples delivered at each tick.
func run(_ providers: [any RadioProvider], level: String = "T1", ticks: [Int],
         position: @escaping @Sendable (Int) -> MapPoint = { _ in MapPoint(x: 0, y: 0) }) async
    -> (statuses: [ProviderStatus], perTick: [[Sample]])
{
    let sink = SampleSink()
    let context = CaptureContext(clock: VirtualClock(), level: level, position: position)
    var statuses: [ProviderStatus] = []
    for p in providers { statuses.append(await p.start(context: context, sink: sink)) }
    var perTick: [[Sample]] = []
    for t in ticks {
        var delivered: [Sample] = []
        for p in providers {
            await p.advance(toMs: t)
            delivered.append(contentsOf: sink.drain())
        }
        perTick.append(delivered)
    }
    for p in providers { await p.stop() }
    return (statuses, perTick)
}

func ticks(every step: Int, until end: Int) -> [Int] { Array(stride(from: step, through: end, by: step)) }

extension Sample {
    var bleScan: BLEScan? { if case .ble(let s) = self { s } else { nil } }
    var wifiScan: WiFiScan? { if case .wifi(let s) = self { s } else { nil } }
    var cellScan: CellScan? { if case .cell(let s) = self { s } else { nil } }
    var geoFix: GeoFix? { if case .geo(let s) = self { s } else { nil } }
}

func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
