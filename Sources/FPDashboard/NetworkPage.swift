import FPAnalysis
import FPCore
import FPProbe
import Foundation
import Hummingbird

/// A map's Network page (`/network/<map>?metric=down&by=day&from=…&to=…`):
/// a probe figure on the floor plan, per calendar period over time with the
/// alert rules' limits, and the runs in a table, all of the chosen range.
extension Pages {
    /// Most runs the table lists; most slots the chart draws.
    static let networkRowsShown = 200, networkSlots = 120
    /// Most documents with probes read for one map (the newest).
    static let networkDocuments = 20_000

    func network(_ id: String, query: [String: String]) async throws -> Response {
        let sequence = try await dashboard.index.lastSequence()
        let points = try await dashboard.index.snapshot().filter { $0.map == id }
        guard !points.isEmpty || dashboard.options.maps[id] != nil else {
            return Responses.message(.notFound, heading: "No such map", text: "No measurement is on map \(id).",
                                     user: user, canLogout: canLogout, head: head)
        }
        let request: NetworkRequest
        do { request = try NetworkRequest(query, zone: dashboard.options.timeZone) } catch {
            return Responses.message(.badRequest, heading: "Bad address", text: error.message, user: user, canLogout: canLogout,
                                     head: head)
        }
        let map = dashboard.options.maps[id] ?? DashboardMap(id: id)
        let (store, withProbes) = (dashboard.store, points.filter { $0.probes > 0 })
        let runs = try await dashboard.networkRuns.runs(map: id, sequence: sequence) {
            try await NetworkRun.read(store, documents: withProbes, limit: Self.networkDocuments)
        }
        var context: [String: Any] = ["id": id, "link": Self.link(id), "description": map.description,
                                      "zone": request.zoneCaption, "total": Self.counted(runs.count)]
        guard !runs.isEmpty else { return page("Network \(id)", "network", context) }
        let chosen = runs.filter { run in run.time.map(request.contains) ?? (request.range == nil) }
        let metric = request.metric
        context["hasRuns"] = true
        context["metrics"] = ProbeMetric.allCases.map { m in
            ["name": m.shortName, "href": request.href(metric: m), "on": m == metric] as [String: Any]
        }
        context["periods"] = TimeBucket.allCases.map { b in
            ["name": b.rawValue, "href": request.href(by: b), "on": b == request.by] as [String: Any]
        }
        context["range"] = request.rangeText
        if request.range != nil { context["allTime"] = request.href(from: nil, to: nil) }
        context["inRange"] = Self.counted(chosen.count)
        let values = chosen.compactMap { $0.figures[metric] }
        let limits = limitLines(map: id, metric: metric)
        let scale = SVGPlot.ValueScale(name: metric.name, unit: metric.unit, higherIsBetter: metric.higherIsBetter,
                                       values: values + limits.map(\.value))
        if chosen.isEmpty {
            context["noFigure"] = "No probe ran in this range."
        } else if values.isEmpty {
            context["noFigure"] = "None of the \(Self.counted(chosen.count)) runs\(request.range == nil ? "" : " in this range") has a "
                + "\(metric.name) figure (its \(metric.phase) phase did not end ok)."
        } else {
            context["heatmap"] = heatmap(runs: chosen, map: map, metric: metric, scale: scale)
            context["chart"] = chart(runs: chosen, request: request, scale: scale, limits: limits)
        }
        let newest = chosen.sorted { ($0.time ?? .distantPast) > ($1.time ?? .distantPast) }
        let shown = newest.prefix(Self.networkRowsShown)
        context["tableNote"] = (shown.count < newest.count ? "the latest \(Self.counted(shown.count)) of \(Self.counted(newest.count))"
            : Self.counted(newest.count)) + ", newest first"
        context["rows"] = shown.map { row($0, map: id, zone: request.zone) }
        return page("Network \(id)", "network", context)
    }

    private func heatmap(runs: [NetworkRun], map: DashboardMap, metric: ProbeMetric, scale: SVGPlot.ValueScale) -> String? {
        let marks = runs.compactMap { run in
            run.position.map { SVGPlot.ProbeMark(x: $0.x, y: $0.y, start: run.start, end: run.end, value: run.figures[metric], label: run.label) }
        }
        let values = marks.compactMap(\.value)
        guard !values.isEmpty else { return nil }
        let (width, height) = SVGPlot.mapExtent(marks.map { (x: $0.x, y: $0.y) }, floorPlan: map.floorPlan,
                                                extent: map.width.flatMap { w in map.height.map { (width: w, height: $0) } },
                                                metersPerUnit: map.metersPerUnit)
        let title = "\(metric.name.prefix(1).uppercased() + metric.name.dropFirst()) on \(map.id): \(Self.counted(values.count)) "
            + (values.count == 1 ? "probe" : "probes") + (values.count < marks.count ? ", \(marks.count - values.count) without a figure" : "")
            + ", median \(scale.text(Reduction.median(values)!))"
        return SurveyReads.inline(SVGPlot.probeHeatmap(
            title: title, marks: marks, scale: scale, cellMeters: 2, mapWidth: width, mapHeight: height,
            metersPerUnit: map.metersPerUnit, outline: map.outline?.map { (x: $0.x, y: $0.y) }, floorPlan: map.floorPlan))
    }

    private func chart(runs: [NetworkRun], request: NetworkRequest, scale: SVGPlot.ValueScale, limits: [SVGPlot.LimitLine]) -> String? {
        let metric = request.metric, by = request.by, calendar = TimeBucket.calendar(request.zone)
        let samples = runs.compactMap { run in run.time.flatMap { t in run.figures[metric].map { (time: t, value: $0) } } }
        let summaries = TimeBucketSummary.summarize(samples, by: by, in: calendar)
        guard let earliest = summaries.first, let latest = summaries.last else { return nil }
        let byStart = Dictionary(uniqueKeysWithValues: summaries.map { ($0.interval.start, $0) })
        let first = request.range?.start ?? earliest.interval.start
        let last = request.range.map { $0.end.addingTimeInterval(-1) } ?? latest.interval.start
        // A wide range of fine periods (years of hours) is never walked whole: only its latest slots are drawn.
        let floor = calendar.date(byAdding: by.component, value: -Self.networkSlots, to: last) ?? first
        var periods = TimeBucketSummary.periods(from: max(first, floor), through: last, by: by, in: calendar)
        let cut = periods.count > Self.networkSlots || floor > first
        if cut { periods = Array(periods.suffix(Self.networkSlots)) }
        let slots = periods.map { p in
            SVGPlot.BucketSlot(label: by.label(p.start, in: calendar), title: request.periodTitle(p, by: by),
                               summary: byStart[p.start],
                               link: request.href(by: by.finer ?? .hour, from: p.start, to: p.end))
        }
        let title = "\(metric.name.prefix(1).uppercased() + metric.name.dropFirst()) per \(by.rawValue): "
            + "\(Self.counted(samples.count)) \(samples.count == 1 ? "run" : "runs") in \(Self.counted(summaries.count)) "
            + (summaries.count == 1 ? by.rawValue : "\(by.rawValue)s")
        let caption = "\(request.zoneCaption)" + (cut ? "; the latest \(Self.networkSlots) \(by.rawValue)s shown" : "")
        return SurveyReads.inline(SVGPlot.bucketChart(title: title, slots: slots, scale: scale, limits: limits, caption: caption))
    }

    /// The app config's rules on this figure that apply on this map (everywhere, the map, or a link), in the chart's unit.
    func limitLines(map: String, metric: ProbeMetric) -> [SVGPlot.LimitLine] {
        dashboard.options.alertRules.compactMap { rule in
            guard rule.figure == metric.alertFigure else { return nil }
            switch rule.scope {
            case .everywhere, .link: break
            case .map(let id) where id == map: break
            default: return nil
            }
            let value = rule.figure.unit == .rate ? rule.limit / 1e6 : rule.limit
            return SVGPlot.LimitLine(value: value, name: rule.id, label: "\(rule.id): \(rule.summary)")
        }
    }

    private func row(_ run: NetworkRun, map: String, zone: TimeZone) -> [String: Any] {
        var row: [String: Any] = [
            "time": run.time.map { NetworkRequest.format($0, "yyyy-MM-dd HH:mm:ss", zone) } ?? "?",
            "link": run.link.isEmpty ? "not recorded" : run.link,
            "place": run.position.map { String(format: "%@ (%.0f, %.0f)", map, $0.x, $0.y) } ?? "no place",
            "document": run.document,
        ]
        for m in ProbeMetric.allCases {
            row[m.rawValue] = run.figures[m].map { String(format: m == .loss ? "%.2f %@" : "%.1f %@", $0, m.unit) } ?? "—"
        }
        return row
    }

    /// 1234 → "1,234".
    static func counted(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }
}

extension ProbeMetric {
    /// The alert rules' figure of the same name (their loss and jitter are of the worse direction).
    var alertFigure: AlertFigure {
        switch self {
        case .down: .download
        case .up: .upload
        case .rtt: .rtt
        case .loss: .loss
        case .jitter: .jitter
        }
    }

    /// What the page's switch calls it.
    var shortName: String {
        switch self {
        case .down: "download"
        case .up: "upload"
        case .rtt: "RTT"
        case .loss: "loss"
        case .jitter: "jitter"
        }
    }
}
