import FPAnalysis
import FPCore

/// The plots of one map's documents, drawn by FPAnalysis as `fprint plot`
/// draws them: a transmitter's heatmap and the beacon coverage.
struct MapPlots {
    let map: DashboardMap
    let fingerprints: [Fingerprint]
    let mapWidth: Double
    let mapHeight: Double
    let medians: [[String: Double]]

    init(map: DashboardMap, fingerprints: [Fingerprint], mapWidth: Double, mapHeight: Double) {
        self.map = map
        self.fingerprints = fingerprints
        self.mapWidth = mapWidth
        self.mapHeight = mapHeight
        medians = fingerprints.map { Reduction.reduce($0, set: .combined, options: SignalOptions()) }
    }

    var outline: [(x: Double, y: Double)]? { map.outline?.map { (x: $0.x, y: $0.y) } }

    /// Transmitters by the number of points that hear them, most first.
    func transmitters() -> [(id: String, count: Int)] {
        var counts: [String: Int] = [:]
        for m in medians { for id in m.keys { counts[id, default: 0] += 1 } }
        return counts.map { (id: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.id < $1.id }
    }

    /// "Not heard" only where the transmitter's radio was scanned (as `fprint plot heatmap`).
    func heatmap(_ id: String) -> String {
        let wifi = id.hasPrefix("WIFI:")
        let points = zip(fingerprints, medians).compactMap { fp, m -> SVGPlot.HeatPoint? in
            guard !(wifi ? fp.wifi : fp.ble).isEmpty else { return nil }
            return SVGPlot.HeatPoint(x: Double(fp.x), y: Double(fp.y), rssi: m[id], label: String(fp.id.prefix(8)))
        }
        return SVGPlot.heatmap(title: "\(id) on \(map.id)", points: points, mapWidth: mapWidth, mapHeight: mapHeight,
                               metersPerUnit: map.metersPerUnit, outline: outline)
    }

    /// Beacons heard at −90 dBm or stronger on 2 m cells; registry beacons when the map has a registry.
    func coverage(registry: BeaconRegistry?) -> (svg: String, cells: Int, gaps: Int) {
        let minRSSI = -90.0, cellMeters = 2.0
        let counted = Coverage.points(fingerprints, minRSSI: minRSSI,
                                      beacons: registry.map { Set($0.entries.map { Fingerprint.bleID($0.mac) }) })
        let points = counted.map { (x: Double($0.x), y: Double($0.y), beacons: $0.heard.count) }
        let cell = cellMeters / map.metersPerUnit
        let cells = SVGPlot.coverageCells(points, cell: cell)
        let svg = SVGPlot.coverage(title: "Beacon coverage on \(map.id)", points: points, cells: cells, cell: cell,
                                   needed: Coverage.needed, mapWidth: mapWidth, mapHeight: mapHeight,
                                   metersPerUnit: map.metersPerUnit, outline: outline)
        return (svg, cells.count, cells.filter { $0.beacons < Coverage.needed }.count)
    }
}
