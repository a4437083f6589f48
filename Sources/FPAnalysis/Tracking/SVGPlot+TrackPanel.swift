import Foundation

extension SVGPlot {
    /// Where one floor's map panel of a track plot sits: pixels from the page's corner, `scale` pixels per map unit.
    struct TrackPanel {
        var index: Int
        var left: Double, top: Double
        var width: Double, height: Double
        var scale: Double
        func x(_ v: Double) -> Double { left + v * scale }
        func y(_ v: Double) -> Double { top + v * scale }
        func point(_ vx: Double, _ vy: Double) -> String { "\(f(x(vx))),\(f(y(vy)))" }
    }

    /// One floor of a track: the picture, walls, metre axes and scale bar, and
    /// inside a clip path (nothing drawn over the legend or the next panel)
    /// the true path, the estimates on this floor (one line per visit), the
    /// accuracy circles and the floor changes.
    static func trackPanel(_ p: TrackPanel, floor: TrackFloor, samples: [TrackSample], indices: [Int],
                           truth: [(x: Double, y: Double)], circled: [Int], changes: [Int], floorIndex: (String?) -> Int,
                           metersPerUnit: Double, titled: Bool) -> [String] {
        let clipID = "track-panel-\(p.index)"
        var body = floorPlanImage(floor.floorPlan, left: p.left, top: p.top, scale: p.scale, width: p.width, height: p.height,
                                  clipID: "track-area-\(p.index)")
        body.append(outlineShape(floor.outline, left: p.left, top: p.top, scale: p.scale, width: p.width, height: p.height))
        body += mapAxes(left: p.left, top: p.top, width: p.width, height: p.height, widthM: floor.width * metersPerUnit,
                        heightM: floor.height * metersPerUnit)
        if titled {
            body.append("<text class=\"floor-title\" x=\"\(f(p.left))\" y=\"\(f(p.top - 8))\" font-weight=\"bold\">\(escape(floor.map))</text>")
        }
        body.append("<clipPath id=\"\(clipID)\"><rect x=\"\(f(p.left))\" y=\"\(f(p.top))\" width=\"\(f(p.width))\" height=\"\(f(p.height))\"/></clipPath>")
        var inside = ["<g class=\"track-panel\" clip-path=\"url(#\(clipID))\">"]
        if !truth.isEmpty {
            inside.append("<polyline class=\"truth\" fill=\"none\" stroke=\"#999\" stroke-width=\"4\" points=\"\(truth.map { p.point($0.x, $0.y) }.joined(separator: " "))\"><title>true path</title></polyline>")
        }
        // A line per visit to the floor: leaving it and coming back is not one straight jump.
        var runs: [[Int]] = []
        for i in indices {
            if let last = runs.last?.last, last == i - 1 { runs[runs.count - 1].append(i) } else { runs.append([i]) }
        }
        for run in runs {
            inside.append("<polyline class=\"estimate\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"\(run.map { p.point(samples[$0].x, samples[$0].y) }.joined(separator: " "))\"><title>estimates</title></polyline>")
        }
        for i in indices {
            let s = samples[i]
            let label = String(format: "%.0f s", s.timeS) + (s.errorM.map { String(format: ": error %.2f m", $0) } ?? "")
            inside.append("<circle class=\"fix\" cx=\"\(f(p.x(s.x)))\" cy=\"\(f(p.y(s.y)))\" r=\"2.5\" fill=\"#1f77b4\"><title>\(escape(label))</title></circle>")
        }
        for i in circled {
            let s = samples[i], r = (s.accuracyM ?? 0) / metersPerUnit * p.scale
            let label = String(format: "%.0f s: stated accuracy %.2f m", s.timeS, s.accuracyM ?? 0)
                + (s.errorM.map { String(format: ", error %.2f m", $0) } ?? "")
            inside.append("<circle class=\"accuracy-circle\" cx=\"\(f(p.x(s.x)))\" cy=\"\(f(p.y(s.y)))\" r=\"\(f(r))\" fill=\"#ff7f0e\" fill-opacity=\"0.08\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"><title>\(escape(label))</title></circle>")
            if let t = s.truth {
                inside.append("<line class=\"accuracy-truth\" x1=\"\(f(p.x(s.x)))\" y1=\"\(f(p.y(s.y)))\" x2=\"\(f(p.x(t.x)))\" y2=\"\(f(p.y(t.y)))\" stroke=\"#ff7f0e\" stroke-dasharray=\"3 2\"/>")
                inside.append("<circle class=\"accuracy-truth\" cx=\"\(f(p.x(t.x)))\" cy=\"\(f(p.y(t.y)))\" r=\"3\" fill=\"#555\"/>")
            }
        }
        // A floor change on both its floors: where the track left this one, where it arrived on this one.
        for c in changes {
            for (i, other, verb) in [(c - 1, samples[c].map, "to"), (c, samples[c - 1].map, "from")] where floorIndex(samples[i].map) == p.index {
                let s = samples[i], cx = p.x(s.x), cy = p.y(s.y)
                let text = "\(verb) \(other ?? "?") at " + String(format: "%.0f s", s.timeS)
                inside.append("<rect class=\"floor-change\" x=\"\(f(cx - 5))\" y=\"\(f(cy - 5))\" width=\"10\" height=\"10\" fill=\"#000\" stroke=\"white\"><title>\(escape(text))</title></rect>")
                inside.append(label(text, x: cx + 1, y: cy - 6, color: "#000", cssClass: "floor-change-label", within: p.left + p.width))
            }
        }
        body += inside + ["</g>"]
        body += scaleBar(left: p.left + 12, bottom: p.top + p.height - 14, pixelsPerMeter: p.scale / max(metersPerUnit, 1e-9),
                         widthM: floor.width * metersPerUnit)
        return body
    }
}
