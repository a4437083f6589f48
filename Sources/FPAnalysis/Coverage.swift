/// Beacon coverage of measured points: how many beacons each point hears
/// above a threshold. Trilateration needs at least three, so points with
/// fewer are flagged (the beacon placement rule).
package enum Coverage {
    package struct Point: Sendable, Equatable {
        package var id: String
        package var level: String
        package var x: Int
        package var y: Int
        /// Beacons heard with median RSSI ≥ the threshold, strongest first (eval's BLE ids).
        package var heard: [(id: String, rssi: Double)]
        package var enough: Bool { heard.count >= Coverage.needed }

        package static func == (a: Point, b: Point) -> Bool {
            a.id == b.id && a.level == b.level && a.x == b.x && a.y == b.y && a.heard.map(\.id) == b.heard.map(\.id)
                && a.heard.map(\.rssi) == b.heard.map(\.rssi)
        }
    }

    package static let needed = 3

    /// `beacons`: only these BLE ids count (a registry), nil: every BLE transmitter.
    package static func points(_ fps: [Fingerprint], minRSSI: Double, beacons: Set<String>?) -> [Point] {
        fps.map { fp in
            let medians = Reduction.reduce(fp, set: .ble, options: SignalOptions())
            let heard = medians.filter { $0.value >= minRSSI && (beacons?.contains($0.key) ?? true) }
                .map { (id: $0.key, rssi: $0.value) }
                .sorted { $0.rssi != $1.rssi ? $0.rssi > $1.rssi : $0.id < $1.id }
            return Point(id: fp.id, level: fp.level, x: fp.x, y: fp.y, heard: heard)
        }
    }
}
