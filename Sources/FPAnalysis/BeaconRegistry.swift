import FPCore

/// A beacon registry in the shape of the FIM building's `fim-beacons.json`
/// (radio-localization-eval): a JSON array whose entries are null (skipped,
/// the original's first entry is) or `{mac, uuid, major, minor, floor, x, y}`
/// with x/y in map units. fprint reads an optional `measuredPower` (dBm at
/// 1 m) and `name` per beacon. Entries without a position are kept out of
/// positioning. Beacons are matched by `mac` alone (uuid/major/minor and an
/// Eddystone namespace/instance are kept in the file, not matched).
package struct BeaconRegistry: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var mac: String
        package var floor: String?
        package var x: Double
        package var y: Double
        package var measuredPower: Double?
        /// What the deployment sheet calls it (`fprint beacons import`).
        package var name: String?
    }

    package var entries: [Entry]

    /// `source` names the file in errors.
    package init(json: JSONValue, source: String) throws(FingerprintError) {
        guard case .array(let items) = json else { throw FingerprintError("\(source): $: expected an array of beacons") }
        var out: [Entry] = []
        for (i, item) in items.enumerated() {
            if item.isNull { continue }
            guard case .object(let o) = item else { throw FingerprintError("\(source): $[\(i)]: expected an object or null") }
            guard let mac = o["mac"]?.stringValue, !mac.isEmpty else {
                throw FingerprintError("\(source): $[\(i)].mac: expected a MAC address")
            }
            guard let x = o["x"]?.doubleValue, let y = o["y"]?.doubleValue else { continue }  // not placed
            var mp: Double?
            if let v = o["measuredPower"], !v.isNull {
                guard let d = v.doubleValue, (-120.0...0).contains(d) else {
                    throw FingerprintError("\(source): $[\(i)].measuredPower: expected dBm between −120 and 0")
                }
                mp = d
            }
            out.append(Entry(mac: mac.uppercased(), floor: o["floor"]?.stringValue, x: x, y: y, measuredPower: mp,
                             name: o["name"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }))
        }
        entries = out
    }

    package func entry(address: String) -> Entry? {
        let a = address.uppercased()
        return entries.first { $0.mac == a }
    }
}

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
        package var mac: String
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

    /// nil with fewer than 3 registry beacons heard.
    package func locate(_ fp: Fingerprint) -> Result? {
        let medians = Reduction.reduce(fp, set: .ble, options: SignalOptions())
        var heard: [(entry: BeaconRegistry.Entry, rssi: Double)] = []
        for e in registry.entries {
            if let r = medians[Fingerprint.bleID(e.mac)] { heard.append((e, r)) }
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
                      beacons: zip(heard, anchors).map { Used(mac: $0.entry.mac, rssi: $0.rssi, distanceMeters: $1.distance) })
    }
}
