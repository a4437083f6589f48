import FPCore

/// What eval's (and locate's, track's) BLE transmitters are keyed by.
package enum BLEKey: String, Sendable, CaseIterable, Codable {
    /// `BLE:<address>`, as radio-localization-eval does: a rotating address is a new transmitter.
    case address
    /// `BLE:<identity>` for an address that advertised an iBeacon/Eddystone-UID
    /// identity in the document (`BLE:ibeacon:<UUID>:<major>:<minor>`,
    /// `BLE:eddystone:<namespace>:<instance>`), its address otherwise: a
    /// beacon whose address rotates is one transmitter.
    case identity
}

extension Fingerprint {
    /// This fingerprint with its BLE transmitters keyed by `key` (`.address`: unchanged).
    package func keyed(by key: BLEKey) -> Fingerprint {
        guard key == .identity, !bleIdentities.isEmpty else { return self }
        var out = self
        var renamed: [String: String] = [:]
        var identities: [String: BeaconIdentity] = [:]
        for (transmitter, id) in bleIdentities {
            let name = Fingerprint.bleID(id)
            renamed[transmitter] = name
            identities[name] = id
        }
        for i in out.ble.indices {
            if let name = renamed[out.ble[i].transmitter] { out.ble[i].transmitter = name }
        }
        out.bleIdentities = identities
        return out
    }

    /// This fingerprint without its BLE readings weaker than `dBm` (nil: all kept). Wi-Fi is left alone:
    /// the positioning thesis' floor is for beacons, whose weak reports are mostly reflections.
    package func droppingBLE(weakerThan dBm: Double?) -> Fingerprint {
        guard let dBm else { return self }
        var out = self
        out.ble.removeAll { $0.rssi < dBm }
        return out
    }
}
