import ArgumentParser
import FPAnalysis
import FPConfig
import FPCore
import FPProbe
import FPStore
import Foundation

/// `plot heatmap --metric` and `plot series --probes`: network probes'
/// figures (every stored document's `networkProbes[]`) on the map and over time.
enum PlotProbes {
    /// The side of a heatmap square, in metres.
    static let cellMeters = 2.0

    /// The probes of the documents the filters select.
    static func runs(_ ws: Workspace, _ filters: FilterOptions) throws -> [ProbeRun] {
        let texts = try AnalysisInput.documents(try ws.openStore(.read), filters)
        return ProbeRun.all(texts.compactMap { t in (try? CanonicalJSON.parse(t.body)).map { (t.id, $0) } })
    }

    static func label(_ run: ProbeRun) -> String { "\(run.docID.prefix(8)) probe \(run.number)" }

    static func heatmap(metric: ProbeMetric, map: String, filters: FilterOptions, floorPlan: FloorPlanOptions,
                        underlay: String?, out: Plot.Output, ws: Workspace) throws {
        let runs = try runs(ws, filters).filter { $0.map == map }
        let placed = runs.compactMap { run in run.position.map { (run: run, at: $0) } }
        guard !placed.isEmpty else {
            throw CommandFailure("no network probes on map \(map)\(runs.isEmpty ? "" : " with a position")"
                + " (networkProbes[] of measure/walk --probe or fprint probe --every)", .notFound)
        }
        let marks = placed.map { p in
            SVGPlot.ProbeMark(x: p.at.x, y: p.at.y, start: p.run.start, end: p.run.end, value: metric.value(p.run), label: label(p.run))
        }
        let values = marks.compactMap(\.value)
        guard !values.isEmpty else {
            throw CommandFailure("none of the \(Terminal.counted(marks.count, "network probe")) on map \(map) has a \(metric.name) figure "
                + "(its \(metric.phase) phase did not end ok)", .notFound)
        }
        if out.sparkline {
            Terminal.out(SVGPlot.sparkline(values) + String(format: "  %.1f…%.1f %@", values.min()!, values.max()!, metric.unit))
            return
        }
        let config = try ws.configIfAny()
        let plan = underlay == nil ? try floorPlan.plan(map: map, config: config) : nil
        let metersPerUnit = AnalysisInput.scales(config, levels: [map])[map] ?? MapScale.jBuilding.metersPerUnit
        let mapConfig = config?.appConfig.map(id: map)
        let (width, height) = SVGPlot.mapExtent(marks.map { (x: $0.x, y: $0.y) }, floorPlan: plan,
                                                extent: mapConfig?.extent.map { ($0.width, $0.height) }, metersPerUnit: metersPerUnit)
        let scale = SVGPlot.ValueScale(name: metric.name, unit: metric.unit, higherIsBetter: metric.higherIsBetter, values: values)
        let title = "\(metric.name.prefix(1).uppercased() + metric.name.dropFirst()) on \(map): \(Terminal.counted(values.count, "probe"))"
            + (values.count < marks.count ? ", \(marks.count - values.count) without a figure" : "")
            + ", median \(scale.text(Reduction.median(values)!))"
        try out.write(SVGPlot.probeHeatmap(title: title, marks: marks, scale: scale, cellMeters: cellMeters, mapWidth: width,
                                           mapHeight: height, metersPerUnit: metersPerUnit,
                                           outline: mapConfig?.outline?.map { (x: $0.x, y: $0.y) }, floorPlan: plan, underlay: underlay))
    }

    static func series(metric: ProbeMetric, filters: FilterOptions, out: Plot.Output, ws: Workspace) throws {
        let runs = try runs(ws, filters)
        let timed = runs.compactMap { run in run.time.map { (run: run, time: $0) } }
        let scope = filters.map.map { " on map \($0)" } ?? ""
        guard !timed.isEmpty else {
            throw CommandFailure("no network probes\(scope)\(filters.since == nil ? "" : " since \(filters.since!)")", .notFound)
        }
        let samples = timed.map { SVGPlot.ProbeSample(time: $0.time.timeIntervalSince1970, value: metric.value($0.run), label: label($0.run)) }
        let values = samples.sorted { $0.time < $1.time }.compactMap(\.value)
        guard !values.isEmpty else {
            throw CommandFailure("none of the \(Terminal.counted(samples.count, "network probe"))\(scope) has a \(metric.name) figure "
                + "(its \(metric.phase) phase did not end ok)", .notFound)
        }
        if out.sparkline {
            Terminal.out(SVGPlot.sparkline(values) + String(format: "  %.1f…%.1f %@", values.min()!, values.max()!, metric.unit))
            return
        }
        let scale = SVGPlot.ValueScale(name: metric.name, unit: metric.unit, higherIsBetter: metric.higherIsBetter, values: values)
        let title = "\(metric.name.prefix(1).uppercased() + metric.name.dropFirst())\(scope): \(Terminal.counted(values.count, "probe"))"
            + (values.count < samples.count ? ", \(samples.count - values.count) without a figure" : "")
            + ", median \(scale.text(Reduction.median(values)!))"
        try out.write(SVGPlot.probeSeries(title: title, samples: samples, scale: scale))
    }
}

/// `--metric down|up|rtt|loss|jitter` (the metric itself is FPProbe's, which the dashboard shares).
extension ProbeMetric: ExpressibleByArgument {}
