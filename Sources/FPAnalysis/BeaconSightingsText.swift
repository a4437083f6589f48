import FPCore
import Foundation

extension BeaconSighting {
    /// A stored measurement's BLE reports of `macs` (upper case), by MAC,
    /// timed from the measurement's start, with any Eddystone-TLM battery and
    /// temperature; a document that cannot be read has none. What `fprint
    /// beacons --health` and the dashboard's alerts both count.
    package static func reports(in body: String, macs: Set<String>) -> [String: [BeaconSighting]] {
        guard let doc = try? CanonicalJSON.parse(Data(body.utf8)),
              let start = (doc["startTime"]?.stringValue).flatMap(ISOTime.milliseconds)
                ?? (doc["createdAt"]?.stringValue).flatMap(ISOTime.milliseconds),
              let scans = doc["bleScans"]?.arrayValue
        else { return [:] }
        var out: [String: [BeaconSighting]] = [:]
        for scan in scans {
            guard let mac = scan["address"]?.stringValue?.uppercased(), macs.contains(mac) else { continue }
            let beacon = scan["beacon"]
            out[mac, default: []].append(BeaconSighting(
                at: start + (scan["time"]?.intValue ?? 0), rssi: scan["rssi"]?.intValue.map { Int($0) },
                batteryMilliVolts: beacon?["batteryMilliVolts"]?.intValue.map { Int($0) },
                temperature: beacon?["temperature"]?.doubleValue))
        }
        return out
    }
}
