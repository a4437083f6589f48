import FPCore
import Foundation

extension BeaconSighting {
    /// A stored measurement's BLE reports of the `registries`' beacons, by
    /// `Entry.id` (the MAC, else the advertised identity), timed from the
    /// measurement's start, with any Eddystone-TLM battery and temperature; a
    /// document that cannot be read has none. A report is matched by the
    /// identity it advertises first, then its address; a report without one
    /// (an Eddystone-TLM frame) by the identity its address advertised elsewhere
    /// in the document. What `fprint beacons --health` and the dashboard's alerts both count.
    package static func reports(in body: String, registries: [BeaconRegistry]) -> [String: [BeaconSighting]] {
        guard !registries.isEmpty, let doc = try? CanonicalJSON.parse(Data(body.utf8)),
              let start = (doc["startTime"]?.stringValue).flatMap(ISOTime.milliseconds)
                ?? (doc["createdAt"]?.stringValue).flatMap(ISOTime.milliseconds),
              let scans = doc["bleScans"]?.arrayValue
        else { return [:] }
        var advertised: [String: BeaconIdentity] = [:]  // upper-case address → its identity in this document
        for scan in scans {
            guard let address = scan["address"]?.stringValue?.uppercased(), advertised[address] == nil,
                  let beacon = scan["beacon"], let id = BeaconIdentity(json: beacon) else { continue }
            advertised[address] = id
        }
        var out: [String: [BeaconSighting]] = [:]
        for scan in scans {
            guard let address = scan["address"]?.stringValue?.uppercased() else { continue }
            let identity = scan["beacon"].flatMap(BeaconIdentity.init(json:)) ?? advertised[address]
            guard let entry = registries.lazy.compactMap({ $0.entry(address: address, identity: identity) }).first
            else { continue }
            let beacon = scan["beacon"]
            out[entry.id, default: []].append(BeaconSighting(
                at: start + (scan["time"]?.intValue ?? 0), rssi: scan["rssi"]?.intValue.map { Int($0) },
                batteryMilliVolts: beacon?["batteryMilliVolts"]?.intValue.map { Int($0) },
                temperature: beacon?["temperature"]?.doubleValue))
        }
        return out
    }
}
