import FPCore
import Foundation

extension SVGPlot {
    /// The heatmap's registry beacons: the transmitter shown as a large
    /// labelled diamond ringed in white, the others as small hollow diamonds
    /// (labelled, so a reader can pick the next one to plot). The labels go
    /// where `placer` finds them clear of the points, the diamonds and each other.
    static func heatmapBeacons(shown: MapBeacon?, others: [MapBeacon], left: Double, top: Double, scale: Double,
                               placer: inout SVGLabelPlacer) -> [String] {
        var lines: [String] = []
        let at = { (b: MapBeacon) in (x: left + b.x * scale, y: top + b.y * scale) }
        for b in others {
            let c = at(b)
            lines.append("<path class=\"beacon\" d=\"\(diamond(c.x, c.y, 5))\" fill=\"white\" stroke=\"\(beaconColor)\" stroke-width=\"1.5\"><title>\(escape(b.label))</title></path>")
            placer.add(.disc(x: c.x, y: c.y, r: 5.5))
        }
        if let b = shown {
            let c = at(b)
            lines.append("<path class=\"transmitter\" d=\"\(diamond(c.x, c.y, 10))\" fill=\"\(beaconColor)\" stroke=\"white\" stroke-width=\"2\"><title>\(escape(b.label)) (shown)</title></path>")
            placer.add(.disc(x: c.x, y: c.y, r: 11))
            // The shown one's label first: it gets the best spot.
            lines.append(SVGLabelPlacer.svg(b.label, at: placer.place(b.label, near: c.x, c.y, gap: 12), color: beaconColor,
                                            cssClass: "transmitter-label"))
        }
        for b in others {
            let c = at(b)
            lines.append(SVGLabelPlacer.svg(b.label, at: placer.place(b.label, near: c.x, c.y, gap: 7), color: beaconColor,
                                            cssClass: "beacon-label"))
        }
        return lines
    }

    static func diamond(_ cx: Double, _ cy: Double, _ r: Double) -> String {
        "M\(f(cx)) \(f(cy - r))L\(f(cx + r)) \(f(cy))L\(f(cx)) \(f(cy + r))L\(f(cx - r)) \(f(cy))Z"
    }

    /// What the marks mean, under the x axis's label.
    static func heatmapLegend(left: Double, y: Double, shown: Bool, others: Bool) -> [String] {
        var items = ["<g class=\"legend\">",
                     // A rounded square, not a circle: the plot's circles are its points.
                     "<rect x=\"\(f(left - 1))\" y=\"\(f(y - 9))\" width=\"10\" height=\"10\" rx=\"5\" fill=\"\(viridisColor(0.7))\" stroke=\"#333\" stroke-width=\"1\"/>",
                     "<text x=\"\(f(left + 14))\" y=\"\(f(y))\">median RSSI at a point</text>",
                     "<path d=\"M\(f(left + 164)) \(f(y - 8))l8 8m-8 0l8 -8\" stroke=\"#999\"/>",
                     "<text x=\"\(f(left + 178))\" y=\"\(f(y))\">not heard</text>"]
        var x = left + 252
        if shown {
            items.append("<path d=\"\(diamond(x + 6, y - 4, 7))\" fill=\"\(beaconColor)\"/>")
            items.append("<text x=\"\(f(x + 17))\" y=\"\(f(y))\">this beacon</text>")
            x += 104
        }
        if others {
            items.append("<path d=\"\(diamond(x + 6, y - 4, 5))\" fill=\"white\" stroke=\"\(beaconColor)\" stroke-width=\"1.5\"/>")
            items.append("<text x=\"\(f(x + 15))\" y=\"\(f(y))\">other registry beacons</text>")
        }
        return items + ["</g>"]
    }
}

/// A map's registry beacons as the heatmap of one transmitter marks them
/// (`fprint plot heatmap` and the dashboard alike), and the title naming it.
package struct HeatmapBeacons: Sendable {
    /// The transmitter's own registry position, when it is a registry beacon.
    package let shown: SVGPlot.MapBeacon?
    /// The map's other registry beacons.
    package let others: [SVGPlot.MapBeacon]
    /// The transmitter's registry name, if it has one.
    let name: String?

    /// `transmitter`: a fingerprint id (`BLE:…`, `WIFI:…`); `advertised`: the
    /// identity its address advertised in the measurements, if any.
    package init(registry: BeaconRegistry?, transmitter: String, advertised: BeaconIdentity? = nil) {
        let entries = registry?.entries ?? []
        // By advertised identity, then address (or an identity's id, `BLE:ibeacon:…`), as the registry matches reports.
        let index = registry?.entryIndex(transmitter: transmitter, identities: advertised.map { [transmitter: $0] } ?? [:])
        func mark(_ e: BeaconRegistry.Entry) -> SVGPlot.MapBeacon {
            SVGPlot.MapBeacon(x: e.x, y: e.y, label: e.name ?? e.shortLabel)
        }
        shown = index.map { mark(entries[$0]) }
        others = entries.indices.filter { $0 != index }.map { mark(entries[$0]) }
        name = index.flatMap { entries[$0].name }
    }

    /// Every beacon marked, for the plot's extent.
    package var all: [SVGPlot.MapBeacon] { (shown.map { [$0] } ?? []) + others }

    /// "BLE:… (name) on MAP: heard at N of M points".
    package func title(transmitter: String, map: String, points: [SVGPlot.HeatPoint]) -> String {
        "\(transmitter)\(name.map { " (\($0))" } ?? "") on \(map): heard at \(points.filter { $0.rssi != nil }.count) of \(points.count) points"
    }
}
