extension SVGPlot.HeatPoint {
    /// The measurements taken at one place drawn as one mark: a dataset that
    /// measured each reference point dozens of times (UJI's library: 31,746
    /// fingerprints at 106 places) would stack as many circles on each other
    /// and make a 4.5 MB drawing of what 106 marks show. A place's reading is
    /// the median over all its measurements with "not heard" below any
    /// level, so it is not heard there when most measurements missed it; its
    /// tooltip says how many heard it. `precision`: map units within which
    /// positions are one place. Places keep the order they were first met.
    package static func mergedByPlace(_ points: [Self], precision: Double) -> [Self] {
        places(points, precision: precision) { ($0.x, $0.y) }.map { place in
            let group = place.members
            guard group.count > 1 else { return group[0] }
            // Not heard sorts below every level: a median that lands on one is "not heard".
            let levels = group.map { $0.rssi ?? -.infinity }.sorted()
            let middle = levels.count / 2
            let median = levels.count % 2 == 1 ? levels[middle] : (levels[middle - 1] + levels[middle]) / 2
            let heard = group.filter { $0.rssi != nil }.count
            let label = "\(group.count) measurements (\(group[0].label) …), heard in \(heard)"
            return Self(x: group[0].x, y: group[0].y, rssi: median.isFinite ? median : nil, label: label)
        }
    }
}
