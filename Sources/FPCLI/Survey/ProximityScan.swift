import FPAnalysis
import FPCore
import Foundation

/// `fprint scan --proximity`: each beacon's distance and proximity class
/// from its measured power and smoothed RSSI (`ProximityEstimator`), as a
/// table in place on a terminal or one JSON line per beacon every second.
enum ProximityScan {
    /// One beacon followed by its identity (a beacon that changes its address stays one row).
    struct Followed {
        var beacon: Beacon
        var address: String
        /// The registry's name for it, with --map.
        var name: String?
        var registryPower: Double?
    }

    /// `ibeacon UUID/major/minor`, `eddystone NAMESPACE/INSTANCE`; nil for frames without an identity (URL, TLM).
    static func identity(_ b: Beacon) -> String? {
        switch b.type {
        case "ibeacon", "altbeacon": "\(b.type) \(b.uuid ?? "?") \(b.major ?? 0)/\(b.minor ?? 0)"
        case "eddystone-uid": "eddystone \(b.namespace ?? "?")/\(b.instance ?? "?")"
        default: nil
        }
    }

    static func loop(provider: any RadioProvider, clock: any MeasurementClock, endMs: Int, live: Bool,
                     registry: BeaconRegistry?) async throws {
        let ticker = try await BLETicker(provider: provider, clock: clock)
        var estimator = ProximityEstimator()
        var followed: [String: Followed] = [:]
        var lastPrint = 0
        defer { if live { Terminal.out("") } }
        do {
            try await ticker.run(until: endMs) { t, reports in
                for s in reports {
                    guard let b = s.beacon, let key = identity(b) else { continue }
                    var entry: BeaconRegistry.Entry?
                    if let registry {
                        // By the identity it advertises first: a beacon whose address rotates is still found.
                        guard let e = registry.entry(address: s.address, identity: BeaconIdentity(beacon: b)) else { continue }
                        entry = e
                    }
                    followed[key] = Followed(beacon: b, address: s.address, name: entry?.name ?? entry?.id,
                                             registryPower: entry?.measuredPower)
                    let power = b.measuredPower ?? entry?.measuredPower.map { Int($0.rounded()) }
                    estimator.add(key: key, rssi: s.rssi, measuredPower: power, atMs: s.time)
                }
                if t - lastPrint >= 1000 || t == endMs {
                    lastPrint = t
                    render(followed, estimator, nowMs: t, live: live)
                }
            }
        } catch is CancellationError {
            // Ctrl-C or SIGTERM: how a scan usually ends.
        }
    }

    static func render(_ followed: [String: Followed], _ estimator: ProximityEstimator, nowMs: Int, live: Bool) {
        let keys = followed.keys.sorted()
        let estimates = keys.map { estimator.estimate(key: $0, nowMs: nowMs) }
        if live {
            let lines = rows(keys.indices.compactMap { i in followed[keys[i]].map { ($0, keys[i], estimates[i]) } }, width: Terminal.columns)
            Terminal.out("\u{1B}[H\u{1B}[2J" + "fprint scan --proximity: \(Terminal.counted(keys.count, "beacon")), \(nowMs / 1000) s\n"
                + lines.joined(separator: "\n"))
            return
        }
        for (i, key) in keys.enumerated() {
            guard let f = followed[key] else { continue }
            Terminal.out(CanonicalJSON.string(json(f, estimates[i], nowMs: nowMs)))
        }
    }

    static func json(_ f: Followed, _ e: ProximityEstimator.Estimate, nowMs: Int) -> JSONValue {
        var id: JSONObject = ["type": .string(f.beacon.type)]
        if let u = f.beacon.uuid { id["uuid"] = .string(u) }
        if let m = f.beacon.major { id["major"] = .int(Int64(m)) }
        if let m = f.beacon.minor { id["minor"] = .int(Int64(m)) }
        if let n = f.beacon.namespace { id["namespace"] = .string(n) }
        if let i = f.beacon.instance { id["instance"] = .string(i) }
        var o: JSONObject = [
            "beacon": .object(id), "address": .string(f.address), "time": .int(Int64(nowMs)),
            "measuredPower": (f.beacon.measuredPower.map(Double.init) ?? f.registryPower).map(JSONValue.double) ?? .null,
            "rssi": e.smoothedRSSI.map(JSONValue.double) ?? .null,
            "distance": e.distance.map { JSONValue.double(($0 * 100).rounded() / 100) } ?? .null,
            "proximity": .string(e.proximity.rawValue), "readings": .int(Int64(e.readings)),
        ]
        if let n = f.name { o["name"] = .string(n) }
        return .object(o)
    }

    /// `near       1.2 m  -61.0  name or identity`, cut to `width` columns.
    static func rows(_ shown: [(Followed, String, ProximityEstimator.Estimate)], width: Int) -> [String] {
        let header = "PROXIMITY  DISTANCE   RSSI  BEACON"
        let body = shown.map { f, key, e -> String in
            let distance = e.distance.map { String(format: "%.1f m", $0) } ?? "-"
            let rssi = e.smoothedRSSI.map { String(format: "%.1f", $0) } ?? "-"
            let label = f.name.map { "\($0) (\(key))" } ?? key
            let cells = e.proximity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: max(0, 8 - distance.count)) + distance + "  "
                + String(repeating: " ", count: max(0, 5 - rssi.count)) + rssi + "  " + HeardTable.narrow(label)
            return StatusLine.cut(cells, to: width - 1)
        }
        return [header] + body
    }
}
