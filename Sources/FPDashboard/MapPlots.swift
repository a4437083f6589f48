import FPAnalysis
import FPCore

/// The plots of one map's documents, drawn by FPAnalysis as `fprint plot`
/// draws them: a transmitter's heatmap and the beacon coverage. It keeps
/// what they need of each document (position, medians, which radios were
/// scanned), not the scans, so a cached one is small.
struct MapPlots: Sendable {
    struct Point: Sendable {
        var label: String
        var x: Double, y: Double
        var scannedBLE: Bool, scannedWiFi: Bool
        var medians: [String: Double]
    }

    let map: DashboardMap
    /// The map's registry, whose beacons the heatmap marks as `fprint plot heatmap` does.
    let registry: BeaconRegistry?
    let mapWidth: Double
    let mapHeight: Double
    let points: [Point]
    /// BLE transmitter → the identity its address advertised, so a heatmap marks a rotating beacon's registry place.
    let advertised: [String: BeaconIdentity]
    let coverage: (svg: String, cells: Int, gaps: Int)
    /// Measured cells with fewer than `Coverage.needed` beacons (the Survey page marks them).
    let weakCells: [SVGPlot.CoverageCell]
    /// Beacons heard at −90 dBm or stronger on 2 m cells count for coverage.
    static let coverageRSSI = -90.0, coverageCell = 2.0

    init(map: DashboardMap, fingerprints: [Fingerprint], mapWidth: Double, mapHeight: Double, registry: BeaconRegistry?) {
        self.map = map
        self.registry = registry
        self.mapWidth = mapWidth
        self.mapHeight = mapHeight
        var advertised: [String: BeaconIdentity] = [:]
        for fp in fingerprints { advertised.merge(fp.bleIdentities) { a, _ in a } }
        self.advertised = advertised
        points = fingerprints.map { fp in
            Point(label: String(fp.id.prefix(8)), x: Double(fp.x), y: Double(fp.y), scannedBLE: !fp.ble.isEmpty,
                  scannedWiFi: !fp.wifi.isEmpty, medians: Reduction.reduce(fp, set: .combined, options: SignalOptions()))
        }
        let counted = Self.coverage(map: map, fingerprints: fingerprints, mapWidth: mapWidth, mapHeight: mapHeight,
                                    registry: registry)
        coverage = (counted.svg, counted.cells.count, counted.weak.count)
        weakCells = counted.weak
    }

    var outline: [(x: Double, y: Double)]? { map.outline?.map { (x: $0.x, y: $0.y) } }

    /// Transmitters by the number of points that hear them, most first.
    func transmitters() -> [(id: String, count: Int)] {
        var counts: [String: Int] = [:]
        for p in points { for id in p.medians.keys { counts[id, default: 0] += 1 } }
        return counts.map { (id: $0.key, count: $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.id < $1.id }
    }

    /// "Not heard" only where the transmitter's radio was scanned (as `fprint plot heatmap`).
    func heatmap(_ id: String) -> String {
        let wifi = id.hasPrefix("WIFI:")
        let heat = points.compactMap { p -> SVGPlot.HeatPoint? in
            guard wifi ? p.scannedWiFi : p.scannedBLE else { return nil }
            return SVGPlot.HeatPoint(x: p.x, y: p.y, rssi: p.medians[id], label: p.label)
        }
        let beacons = HeatmapBeacons(registry: registry, transmitter: id, advertised: advertised[id])
        return SVGPlot.heatmap(title: beacons.title(transmitter: id, map: map.id, points: heat), points: heat, mapWidth: mapWidth,
                               mapHeight: mapHeight, metersPerUnit: map.metersPerUnit, outline: outline, floorPlan: map.floorPlan,
                               shown: beacons.shown, beacons: beacons.others)
    }

    /// Registry beacons when the map has a registry, else every BLE transmitter (as `fprint plot coverage`).
    static func coverage(map: DashboardMap, fingerprints: [Fingerprint], mapWidth: Double, mapHeight: Double,
                         registry: BeaconRegistry?) -> (svg: String, cells: [SVGPlot.CoverageCell], weak: [SVGPlot.CoverageCell]) {
        let counted = Coverage.points(registry.map { r in fingerprints.map(r.resolving) } ?? fingerprints, minRSSI: coverageRSSI,
                                      beacons: registry?.keys)
        let points = counted.map { (x: Double($0.x), y: Double($0.y), beacons: $0.heard.count) }
        let cell = coverageCell / map.metersPerUnit
        let cells = SVGPlot.coverageCells(points, cell: cell)
        let svg = SVGPlot.coverage(title: "Beacon coverage on \(map.id)", points: points, cells: cells, cell: cell,
                                   needed: Coverage.needed, mapWidth: mapWidth, mapHeight: mapHeight,
                                   metersPerUnit: map.metersPerUnit, outline: map.outline?.map { (x: $0.x, y: $0.y) },
                                   floorPlan: map.floorPlan)
        return (svg, cells, cells.filter { $0.beacons < Coverage.needed })
    }
}

/// The latest plots of a few maps and the latest beacon alerts, each valid
/// for the store sequence it was made at: a second look at a page is not a
/// second read of every document. At most `capacity` maps are kept.
actor PlotCache {
    static let capacity = 2
    private var maps: [(map: String, sequence: Int64, plots: MapPlots)] = []
    private var health: (sequence: Int64, made: ContinuousClock.Instant, panel: BeaconHealthPanel)?
    private var errors: [(map: String, sequence: Int64, table: ErrorTable)] = []
    /// Alerts also age without new documents ("silent for N days"): they are redone this often.
    static let alertsLifetime: Duration = .seconds(600)

    func plots(map: String, sequence: Int64, make: @Sendable () async throws -> MapPlots) async throws -> MapPlots {
        if let hit = maps.first(where: { $0.map == map && $0.sequence == sequence }) { return hit.plots }
        let made = try await make()
        maps.removeAll { $0.map == map }
        maps.append((map, sequence, made))
        if maps.count > Self.capacity { maps.removeFirst(maps.count - Self.capacity) }
        return made
    }

    func errors(map: String, sequence: Int64, make: @Sendable () async throws -> ErrorTable) async throws -> ErrorTable {
        if let hit = errors.first(where: { $0.map == map && $0.sequence == sequence }) { return hit.table }
        let made = try await make()
        errors.removeAll { $0.map == map }
        errors.append((map, sequence, made))
        if errors.count > Self.capacity { errors.removeFirst(errors.count - Self.capacity) }
        return made
    }

    func health(sequence: Int64, make: @Sendable () async throws -> BeaconHealthPanel) async throws -> BeaconHealthPanel {
        if let health, health.sequence == sequence, ContinuousClock.now - health.made < Self.alertsLifetime { return health.panel }
        let panel = try await make()
        health = (sequence, ContinuousClock.now, panel)
        return panel
    }
}
