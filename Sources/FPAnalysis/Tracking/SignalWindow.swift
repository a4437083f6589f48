import FPCore

/// The radio samples of the last `lengthMs`, for one position per interval.
///
/// Samples arrive in time order (ms on the run's clock) and leave once older
/// than the window; transmitter ids are the evaluator's (`BLE:<address
/// lowercased>`, `WIFI:<mac>`), made once per address, so a busy capture
/// (100,000s of reports a second in a fast replay) costs a dictionary lookup
/// per report and nothing else.
package struct SignalWindow: Sendable {
    package let lengthMs: Int
    private var times: [Int] = []
    private var ids: [String] = []
    private var rssis: [Double] = []
    private var isBLE: [Bool] = []
    /// Index of the oldest sample still in the window.
    private var head = 0
    private var bleNames: [String: String] = [:]
    private var wifiNames: [String: String] = [:]
    /// BLE transmitter id → the identity its address advertised (the first; kept for the run).
    private var identities: [String: BeaconIdentity] = [:]

    package init(lengthMs: Int) { self.lengthMs = lengthMs }

    package mutating func addBLE(address: String, rssi: Double, timeMs: Int, identity: BeaconIdentity? = nil) {
        let id = Self.interned(address, in: &bleNames, Fingerprint.bleID)
        if let identity, identities[id] == nil { identities[id] = identity }
        append(id, rssi, timeMs, ble: true)
    }

    package mutating func addWiFi(mac: String, rssi: Double, timeMs: Int) {
        append(Self.interned(mac, in: &wifiNames, Fingerprint.wifiID), rssi, timeMs, ble: false)
    }

    /// The id made once per address, then reused.
    private static func interned(_ address: String, in names: inout [String: String], _ make: (String) -> String) -> String {
        if let known = names[address] { return known }
        let id = make(address)
        names[address] = id
        return id
    }

    private mutating func append(_ id: String, _ rssi: Double, _ time: Int, ble: Bool) {
        times.append(time)
        ids.append(id)
        rssis.append(rssi)
        isBLE.append(ble)
    }

    /// Drops samples at or before `endMs − lengthMs`; the window is then (endMs − length, endMs].
    package mutating func slide(toMs endMs: Int) {
        let cutoff = endMs - lengthMs
        while head < times.count && times[head] <= cutoff { head += 1 }
        // Compact now and then, so memory follows the window, not the run.
        if head > 4096 && head * 2 > times.count {
            times.removeFirst(head)
            ids.removeFirst(head)
            rssis.removeFirst(head)
            isBLE.removeFirst(head)
            head = 0
        }
    }

    /// The samples in (endMs − length, endMs] as a fingerprint (times relative to the window start).
    package func fingerprint(endMs: Int, level: String = "") -> Fingerprint {
        var fp = Fingerprint(id: "window@\(endMs)", level: level, x: 0, y: 0)
        let start = endMs - lengthMs
        for i in head..<times.count where times[i] > start && times[i] <= endMs {
            let s = Fingerprint.Sample(transmitter: ids[i], rssi: rssis[i], time: times[i] - start)
            if isBLE[i] {
                fp.ble.append(s)
                if let id = identities[ids[i]] { fp.bleIdentities[ids[i]] = id }
            } else {
                fp.wifi.append(s)
            }
        }
        return fp
    }

    package var count: Int { times.count - head }
}
