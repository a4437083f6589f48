import FPAnalysis
import FPCore
import Foundation

/// The index's beacon health, as `fprint beacons --health` reports it: every
/// registry map with its beacons heard and not, and each alert with where the
/// beacon is (a link to it on its map). A map nobody surveyed yet is said to
/// be so, not listed beacon by beacon as "never heard".
struct BeaconHealthPanel: Sendable {
    struct MapRow: Sendable {
        var map: String
        var beacons: Int
        var heard: Int
        var alerts: Int
        var surveyed: Bool
    }
    struct Alert: Sendable {
        var map: String
        var mac: String
        var x: Double
        var y: Double
        var text: String
    }

    var maps: [MapRow] = []
    var alerts: [Alert] = []

    init() {}

    init(registries: [String: BeaconRegistry], sightings: [String: [BeaconSighting]], surveyed: Set<String>, now: Int64) {
        for (map, registry) in registries.sorted(by: { $0.key < $1.key }) {
            let health = BeaconHealth.assess(map: map, registry: registry, sightings: sightings, now: now)
            let isSurveyed = surveyed.contains(map)
            maps.append(MapRow(map: map, beacons: health.count, heard: health.filter { $0.lastHeard != nil }.count,
                               alerts: health.filter { !$0.alerts.isEmpty }.count, surveyed: isSurveyed))
            // Unsurveyed: its row says so (a flat battery heard from another floor still alerts).
            for h in health {
                for alert in h.alerts where isSurveyed || alert != .neverHeard {
                    alerts.append(Alert(map: map, mac: h.mac, x: h.x, y: h.y, text: alert.description))
                }
            }
        }
    }

    /// The index template's `health` context.
    var context: [String: Any] {
        [
            "maps": maps.map { row -> [String: Any] in
                ["map": row.map, "link": Pages.link(row.map), "beacons": row.beacons, "heard": row.heard,
                 "state": row.surveyed ? (row.alerts == 0 ? "fine" : "\(row.alerts) with alerts")
                    : "not surveyed yet: no measurement on this map (\(row.beacons - row.heard) never heard)"]
            },
            "hasAlerts": !alerts.isEmpty,
            "alerts": alerts.map { a -> [String: Any] in
                ["map": a.map, "mac": a.mac, "text": a.text, "link": Pages.link(a.map), "anchor": FloorPlot.beaconAnchor(a.mac),
                 "at": String(format: "(%g, %g)", a.x, a.y)]
            },
        ]
    }
}
