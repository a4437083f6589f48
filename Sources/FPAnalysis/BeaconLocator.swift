import FPCore

/// Position from BLE beacons alone: median RSSI per registry beacon →
/// distance (log-distance, per-beacon measured power) → mean of the
/// closed-form solutions of every 3-beacon subset of the strongest
/// `maxBeacons` → damped Gauss–Newton over all of them. Computed in metres,
/// returned in map units.
package struct BeaconLocator: Sendable {
    package var registry: BeaconRegistry
    package var metersPerUnit: Double
    package var pathLoss: PathLoss
    package var defaultMeasuredPower: Double
    package var maxBeacons: Int

    package init(registry: BeaconRegistry, metersPerUnit: Double, pathLoss: PathLoss = PathLoss(),
                defaultMeasuredPower: Double = -66, maxBeacons: Int = 6) {
        self.registry = registry
        self.metersPerUnit = metersPerUnit
        self.pathLoss = pathLoss
        self.defaultMeasuredPower = defaultMeasuredPower
        self.maxBeacons = maxBeacons
    }

    package struct Used: Sendable, Equatable {
        /// The registry entry's id (`Entry.id`: its MAC, else its advertised identity).
        package var mac: String
        package var entry: Int
        package var rssi: Double
        package var distanceMeters: Double
    }

    package struct Result: Sendable, Equatable {
        /// map units
        package var x: Double
        package var y: Double
        package var initialX: Double
        package var initialY: Double
        package var beacons: [Used]
    }

    /// The median RSSI of each registry beacon heard in `fp`, by entry index: the
    /// reports of every address matched to an entry (identity first) pooled.
    package func medians(_ fp: Fingerprint) -> [Int: Double] {
        var series: [Int: [Double]] = [:]
        var resolved: [String: Int?] = [:]
        for s in fp.ble {
            let entry: Int?
            if let known = resolved[s.transmitter] {
                entry = known
            } else {
                entry = registry.entryIndex(transmitter: s.transmitter, identities: fp.bleIdentities)
                resolved[s.transmitter] = entry
            }
            if let entry { series[entry, default: []].append(s.rssi) }
        }
        return series.mapValues { Reduction.median($0)! }
    }

    /// nil with fewer than 3 registry beacons heard.
    package func locate(_ fp: Fingerprint) -> Result? {
        let medians = medians(fp)
        var heard: [(entry: BeaconRegistry.Entry, index: Int, rssi: Double)] = []
        for (i, e) in registry.entries.enumerated() {
            if let r = medians[i] { heard.append((e, i, r)) }
        }
        // Strongest first; equal RSSI in registry order (a stable sort).
        heard = heard.enumerated().sorted { a, b in
            a.element.rssi != b.element.rssi ? a.element.rssi > b.element.rssi : a.offset < b.offset
        }.map(\.element)
        heard = Array(heard.prefix(maxBeacons))
        guard heard.count >= 3 else { return nil }
        let anchors = heard.map { h in
            Trilateration.Anchor(Vec3(h.entry.x * metersPerUnit, h.entry.y * metersPerUnit),
                                 pathLoss.distance(rssi: h.rssi, measuredPower: h.entry.measuredPower ?? defaultMeasuredPower))
        }
        guard let start = Trilateration.averageOfTriples(anchors, planar: true) else { return nil }
        let refined = Trilateration.refine(anchors, from: start)
        return Result(x: refined.x / metersPerUnit, y: refined.y / metersPerUnit, initialX: start.x / metersPerUnit,
                      initialY: start.y / metersPerUnit,
                      beacons: zip(heard, anchors).map {
                          Used(mac: $0.entry.id, entry: $0.index, rssi: $0.rssi, distanceMeters: $1.distance)
                      })
    }
}
