import Foundation

extension SVGPlot {
    /// One position of a track: where it was estimated and, when known, where it truly was.
    package struct TrackSample: Sendable {
        package var timeS: Double
        package var x: Double, y: Double
        package var truth: (x: Double, y: Double)?
        package var errorM: Double?
        package var accuracyM: Double?
        package init(timeS: Double, x: Double, y: Double, truth: (x: Double, y: Double)?, errorM: Double?, accuracyM: Double?) {
            self.timeS = timeS
            self.x = x
            self.y = y
            self.truth = truth
            self.errorM = errorM
            self.accuracyM = accuracyM
        }
    }

    /// A track on the floor plan (x right, y down, map units): the true path as
    /// a grey line, the estimates as a blue line with dots; below it the error
    /// (red) and the filter's accuracy (dashed) over time. `floorPlan`: the
    /// map's picture under the paths; `outline`: the floor's walls (map units);
    /// `circles`: this many positions, spread over the track, get their
    /// accuracy drawn as a circle (radius accuracy_m / `metersPerUnit`), with
    /// the true point they should hold.
    package static func track(title: String, samples: [TrackSample], mapWidth: Double, mapHeight: Double,
                              floorPlan: FloorPlan? = nil, outline: [(x: Double, y: Double)]? = nil, circles: Int = 0,
                              metersPerUnit: Double = 1, size: Int = 800) -> String {
        let w = Double(size), scale = w / max(mapWidth, 1)
        let top = 30.0, h = mapHeight * scale
        var body = floorPlanImage(floorPlan, left: 0, top: top, scale: scale, width: w, height: h, clipID: "track-area")
        body.append(outlineShape(outline, left: 0, top: top, scale: scale, width: w, height: h))
        func pt(_ x: Double, _ y: Double) -> String { "\(f(x * scale)),\(f(top + y * scale))" }
        let truth = samples.compactMap(\.truth)
        if !truth.isEmpty {
            body.append("<polyline class=\"truth\" fill=\"none\" stroke=\"#999\" stroke-width=\"4\" points=\"\(truth.map { pt($0.x, $0.y) }.joined(separator: " "))\"><title>true path</title></polyline>")
        }
        body.append("<polyline class=\"estimate\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"\(samples.map { pt($0.x, $0.y) }.joined(separator: " "))\"><title>estimates</title></polyline>")
        for s in samples {
            let label = String(format: "%.0f s", s.timeS) + (s.errorM.map { String(format: ": error %.2f m", $0) } ?? "")
            body.append("<circle class=\"fix\" cx=\"\(f(s.x * scale))\" cy=\"\(f(top + s.y * scale))\" r=\"2.5\" fill=\"#1f77b4\"><title>\(escape(label))</title></circle>")
        }
        let chosen = accuracyCircles(samples, count: circles)
        for i in chosen {
            let s = samples[i], r = (s.accuracyM ?? 0) / metersPerUnit * scale
            let label = String(format: "%.0f s: accuracy %.2f m", s.timeS, s.accuracyM ?? 0)
                + (s.errorM.map { String(format: ", error %.2f m", $0) } ?? "")
            body.append("<circle class=\"accuracy-circle\" cx=\"\(f(s.x * scale))\" cy=\"\(f(top + s.y * scale))\" r=\"\(f(r))\" fill=\"#ff7f0e\" fill-opacity=\"0.08\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"><title>\(escape(label))</title></circle>")
            if let t = s.truth {
                body.append("<line class=\"accuracy-truth\" x1=\"\(f(s.x * scale))\" y1=\"\(f(top + s.y * scale))\" x2=\"\(f(t.x * scale))\" y2=\"\(f(top + t.y * scale))\" stroke=\"#ff7f0e\" stroke-dasharray=\"3 2\"/>")
                body.append("<circle class=\"accuracy-truth\" cx=\"\(f(t.x * scale))\" cy=\"\(f(top + t.y * scale))\" r=\"3\" fill=\"#555\"/>")
            }
        }
        let circled = chosen.isEmpty ? "" : "  <tspan fill=\"#ff7f0e\">◯ stated accuracy of \(chosen.count) positions (– – to the truth)</tspan>"
        body.append("<text x=\"10\" y=\"\(f(top + h + 18))\"><tspan fill=\"#999\">━ true path</tspan>  <tspan fill=\"#1f77b4\">● estimates</tspan>\(circled)</text>")
        // Error and accuracy over time.
        let panelTop = top + h + 50
        let t1 = max(1, samples.map(\.timeS).max() ?? 1)
        let e1 = max(1, (samples.compactMap(\.errorM) + samples.compactMap(\.accuracyM)).max() ?? 1)
        let (lines, px, py) = axes(x0: 0, x1: t1, y0: 0, y1: e1, width: w - 100, height: 160, left: 60, top: panelTop,
                                   xLabel: "time (s)", yLabel: "metres")
        body += lines
        let errors = samples.compactMap { s in s.errorM.map { "\(f(px(s.timeS))),\(f(py($0)))" } }
        if !errors.isEmpty {
            body.append("<polyline class=\"error\" fill=\"none\" stroke=\"#d62728\" points=\"\(errors.joined(separator: " "))\"><title>error (m)</title></polyline>")
        }
        let accuracy = samples.compactMap { s in s.accuracyM.map { "\(f(px(s.timeS))),\(f(py($0)))" } }
        if !accuracy.isEmpty {
            body.append("<polyline class=\"accuracy\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\" points=\"\(accuracy.joined(separator: " "))\"><title>accuracy_m (filter)</title></polyline>")
        }
        body.append("<text x=\"70\" y=\"\(f(panelTop - 6))\"><tspan fill=\"#d62728\">— error</tspan>  <tspan fill=\"#555\">- - accuracy_m</tspan></text>")
        return document(width: size, height: Int(panelTop + 160 + 50), title: title, body)
    }

    /// `count` positions with an accuracy, evenly spread over the track (indices).
    static func accuracyCircles(_ samples: [TrackSample], count: Int) -> [Int] {
        let with = samples.indices.filter { samples[$0].accuracyM != nil }
        guard count > 0, !with.isEmpty else { return [] }
        let n = min(count, with.count)
        return (0..<n).map { with[($0 * 2 + 1) * with.count / (2 * n)] }
    }
}
