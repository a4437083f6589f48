import FPCore

/// What eval and locate need of one measurement document: where it was taken
/// and the raw radio samples, with transmitter ids as radio-localization-eval
/// builds them (`BLE:<address lowercased>`, `WIFI:<mac>` as stored).
///
/// Read leniently from the stored JSON tree rather than through
/// `MeasurementDocument`, so imported documents of the old apps (missing keys,
/// fractional RSSI) evaluate too; what cannot be evaluated is a `FingerprintError`
/// naming the document and the key.
package struct Fingerprint: Sendable, Equatable {
    package struct Sample: Sendable, Equatable {
        package var transmitter: String
        package var rssi: Double
        /// ms from the measurement start
        package var time: Int
        package init(transmitter: String, rssi: Double, time: Int) {
            self.transmitter = transmitter
            self.rssi = rssi
            self.time = time
        }
    }

    // The fields live in one shared box, copied only when a copy is changed:
    // a fingerprint is copied whole wherever it is filtered, grouped or
    // iterated, and its ten references (names, sample arrays, labels) each
    // retained per copy were a quarter of eval's reading of 63,504 of them.
    private final class Storage: @unchecked Sendable {  // mutated only while uniquely referenced
        var id: String
        var level: String
        var x: Int
        var y: Int
        var ble: [Sample]
        var wifi: [Sample]
        var labels = Labels()
        var bleIdentities: [String: BeaconIdentity] = [:]

        init(id: String, level: String, x: Int, y: Int, ble: [Sample], wifi: [Sample]) {
            (self.id, self.level, self.x, self.y, self.ble, self.wifi) = (id, level, x, y, ble, wifi)
        }

        func copy() -> Storage {
            let c = Storage(id: id, level: level, x: x, y: y, ble: ble, wifi: wifi)
            (c.labels, c.bleIdentities) = (labels, bleIdentities)
            return c
        }
    }

    private var storage: Storage

    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    package var id: String {
        _read { yield storage.id }
        _modify { yield &unique().id }
    }
    /// Map id (`level`), the evaluator's building and floor.
    package var level: String {
        _read { yield storage.level }
        _modify { yield &unique().level }
    }
    /// Whole map units, as the evaluator reads them.
    package var x: Int {
        _read { yield storage.x }
        _modify { yield &unique().x }
    }
    package var y: Int {
        _read { yield storage.y }
        _modify { yield &unique().y }
    }
    package var ble: [Sample] {
        _read { yield storage.ble }
        _modify { yield &unique().ble }
    }
    package var wifi: [Sample] {
        _read { yield storage.wifi }
        _modify { yield &unique().wifi }
    }
    /// Selections' and train/test evaluation's keys (`FingerprintLabels.swift`).
    package var labels: Labels {
        _read { yield storage.labels }
        _modify { yield &unique().labels }
    }
    /// BLE transmitter id → the beacon identity its reports advertised (the
    /// first an address gave in this document): how a registry matches a
    /// rotating address to its beacon. Empty for documents without beacon frames.
    package var bleIdentities: [String: BeaconIdentity] {
        _read { yield storage.bleIdentities }
        _modify { yield &unique().bleIdentities }
    }

    package init(id: String, level: String, x: Int, y: Int, ble: [Sample] = [], wifi: [Sample] = []) {
        storage = Storage(id: id, level: level, x: x, y: y, ble: ble, wifi: wifi)
    }

    package static func == (a: Fingerprint, b: Fingerprint) -> Bool {
        let (l, r) = (a.storage, b.storage)
        return l === r || (l.id == r.id && l.level == r.level && l.x == r.x && l.y == r.y && l.ble == r.ble
            && l.wifi == r.wifi && l.labels == r.labels && l.bleIdentities == r.bleIdentities)
    }

    package static func bleID(_ address: String) -> String { "BLE:" + address.lowercased() }
    package static func wifiID(_ mac: String) -> String { "WIFI:" + mac }
    /// `BLE:<address lowercased>` for an address, `BLE:<identity text>` (`ibeacon:…`, `eddystone:…`) otherwise.
    package static func bleID(_ identity: BeaconIdentity) -> String {
        if case .mac(let m) = identity { return bleID(m) }
        return "BLE:" + identity.text
    }
}

package struct FingerprintError: Error, Equatable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

extension Fingerprint {
    /// Reads a stored document body. BLE reports without RSSI (`null`, the
    /// controller's "not available") are skipped; a missing `time` counts as
    /// 0, as the evaluator's JSON reader defaults it.
    package init(id: String, body: JSONValue) throws(FingerprintError) {
        guard case .object(let o) = body else { throw FingerprintError("document \(id): not a JSON object") }
        func whole(_ key: String) throws(FingerprintError) -> Int {
            guard let v = o[key] else { throw FingerprintError("document \(id): no \(key) (map position)") }
            guard let i = v.intValue else {
                throw FingerprintError("document \(id): \(key) is \(CanonicalJSON.string(v)), not a whole number of map units")
            }
            return Int(i)
        }
        if o["mode"]?.stringValue == "probe" { throw FingerprintError("document \(id): a network probe run, not a fingerprint") }
        let x = try whole("x"), y = try whole("y")
        let level = o["level"]?.stringValue ?? ""
        var ble: [Sample] = [], wifi: [Sample] = []
        var identities: [String: BeaconIdentity] = [:]
        if let list = o["bleScans"], !list.isNull {
            guard case .array(let items) = list else { throw FingerprintError("document \(id): bleScans is not an array") }
            ble.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard let address = item["address"]?.stringValue else {
                    throw FingerprintError("document \(id): bleScans[\(i)] has no address")
                }
                let transmitter = Self.bleID(address)
                if identities[transmitter] == nil, let beacon = item["beacon"], let id = BeaconIdentity(json: beacon) {
                    identities[transmitter] = id
                }
                guard let rssi = item["rssi"]?.doubleValue else { continue }  // null: RSSI not available
                ble.append(Sample(transmitter: transmitter, rssi: rssi, time: Self.time(item)))
            }
        }
        if let list = o["wifiScans"], !list.isNull {
            guard case .array(let items) = list else { throw FingerprintError("document \(id): wifiScans is not an array") }
            wifi.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                guard let mac = item["mac"]?.stringValue else {
                    throw FingerprintError("document \(id): wifiScans[\(i)] has no mac")
                }
                guard let rssi = item["rssi"]?.doubleValue else { continue }
                wifi.append(Sample(transmitter: Self.wifiID(mac), rssi: rssi, time: Self.time(item)))
            }
        }
        self.init(id: id, level: level, x: x, y: y, ble: ble, wifi: wifi)
        labels = Labels(body: body)
        bleIdentities = identities
    }

    private static func time(_ item: JSONValue) -> Int { wholeTime(item["time"]?.doubleValue) }
}
