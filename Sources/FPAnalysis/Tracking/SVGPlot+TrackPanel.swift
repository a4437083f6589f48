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
    /// the surveyed routes, the true path, the estimates on this floor (one
    /// line per visit, broken at `gaps`), the accuracy circles and the floor
    /// changes, whose labels go where they cover no mark and no other label.
    static func trackPanel(_ p: TrackPanel, floor: TrackFloor, samples: [TrackSample], indices: [Int],
                           truth: [(x: Double, y: Double)], circled: [Int], changes: [Int], gaps: Set<Int>, methods: [String],
                           floorIndex: (String?) -> Int, metersPerUnit: Double, titled: Bool) -> [String] {
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
        var placer = SVGLabelPlacer(frame: .init(x0: p.left, y0: p.top, x1: p.left + p.width, y1: p.top + p.height))
        placer.add(.box(.init(x0: p.left, y0: p.top + p.height - 40, x1: p.left + 170, y1: p.top + p.height)))  // the scale bar
        let pixels = { (points: [(x: Double, y: Double)]) in points.map { (x: p.x($0.x), y: p.y($0.y)) } }
        let polyline = { (points: [(x: Double, y: Double)]) in points.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ") }
        var inside = ["<g class=\"track-panel\" clip-path=\"url(#\(clipID))\">"]
        for route in floor.surveyed where route.count > 1 {
            inside.append("<polyline class=\"surveyed-route\" fill=\"none\" \(TrackLook.surveyed) points=\"\(polyline(pixels(route)))\"><title>surveyed route</title></polyline>")
            placer.add(polyline: pixels(route), width: 1.5)
        }
        if !truth.isEmpty {
            inside.append("<polyline class=\"truth\" fill=\"none\" \(TrackLook.truth) points=\"\(polyline(pixels(truth)))\"><title>true path</title></polyline>")
            placer.add(polyline: pixels(truth), width: 4)
        }
        // A line per visit to the floor, broken at holes in the track: leaving and coming back, or nothing heard for a while, is not one straight jump.
        var runs: [[Int]] = []
        for i in indices {
            if let last = runs.last?.last, last == i - 1, !gaps.contains(last) { runs[runs.count - 1].append(i) } else { runs.append([i]) }
        }
        // Each method's own fixes, thin, in its series style: how far the filter moved them.
        for (k, name) in methods.enumerated() {
            let style = methodStyle(k)
            for run in runs {
                let xy = pixels(run.compactMap { i in samples[i].methods.first { $0.name == name }.map { (x: $0.x, y: $0.y) } })
                guard xy.count > 1 else { continue }
                inside.append("<g class=\"method\" fill=\"none\"><title>\(escape(name)) fixes</title><polyline points=\"\(polyline(xy))\" \(strokeAttributes(style, width: 1))/>"
                    + markerIndexes(xy.count, count: 6).map { marker(style, x: xy[$0].x, y: xy[$0].y, r: 3) }.joined() + "</g>")
                placer.add(polyline: xy, width: 1)
            }
        }
        for run in runs {
            let xy = pixels(run.map { (x: samples[$0].x, y: samples[$0].y) })
            inside.append("<polyline class=\"estimate\" fill=\"none\" \(TrackLook.estimate) points=\"\(polyline(xy))\"><title>estimates</title></polyline>")
            placer.add(polyline: xy, width: 1.5)
        }
        for i in indices {
            let s = samples[i]
            let label = String(format: "%.0f s", s.timeS) + (s.errorM.map { String(format: ": error %.2f m", $0) } ?? "")
            inside.append("<circle class=\"fix\" cx=\"\(f(p.x(s.x)))\" cy=\"\(f(p.y(s.y)))\" r=\"2.5\" fill=\"#1f77b4\"><title>\(escape(label))</title></circle>")
            placer.add(.disc(x: p.x(s.x), y: p.y(s.y), r: 2.5))
        }
        for i in circled {
            let s = samples[i], r = (s.accuracyM ?? 0) / metersPerUnit * p.scale
            let label = String(format: "%.0f s: stated accuracy %.2f m", s.timeS, s.accuracyM ?? 0)
                + (s.errorM.map { String(format: ", error %.2f m", $0) } ?? "")
            // Unfilled: where circles overlap, what lies under them stays as readable as elsewhere.
            inside.append("<circle class=\"accuracy-circle\" cx=\"\(f(p.x(s.x)))\" cy=\"\(f(p.y(s.y)))\" r=\"\(f(r))\" fill=\"none\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"><title>\(escape(label))</title></circle>")
            placer.add(.ring(x: p.x(s.x), y: p.y(s.y), r: r, width: 1.5))
            if let t = s.truth {
                inside.append("<line class=\"accuracy-truth\" x1=\"\(f(p.x(s.x)))\" y1=\"\(f(p.y(s.y)))\" x2=\"\(f(p.x(t.x)))\" y2=\"\(f(p.y(t.y)))\" stroke=\"#ff7f0e\" stroke-dasharray=\"3 2\"/>")
                inside.append("<circle class=\"accuracy-truth\" cx=\"\(f(p.x(t.x)))\" cy=\"\(f(p.y(t.y)))\" r=\"3\" fill=\"#555\"/>")
                placer.add(.segment(x1: p.x(s.x), y1: p.y(s.y), x2: p.x(t.x), y2: p.y(t.y), width: 1))
                placer.add(.disc(x: p.x(t.x), y: p.y(t.y), r: 3))
            }
        }
        // A floor change on both its floors: where the track left this one, where it arrived on this one.
        var changeLabels: [(text: String, x: Double, y: Double)] = []
        for c in changes {
            for (i, other, verb) in [(c - 1, samples[c].map, "to"), (c, samples[c - 1].map, "from")] where floorIndex(samples[i].map) == p.index {
                let s = samples[i], cx = p.x(s.x), cy = p.y(s.y)
                let text = "\(verb) \(other ?? "?") at " + String(format: "%.0f s", s.timeS)
                inside.append("<rect class=\"floor-change\" x=\"\(f(cx - 5))\" y=\"\(f(cy - 5))\" width=\"10\" height=\"10\" fill=\"#000\" stroke=\"white\"><title>\(escape(text))</title></rect>")
                placer.add(.box(.init(x0: cx - 5.5, y0: cy - 5.5, x1: cx + 5.5, y1: cy + 5.5)))
                changeLabels.append((text, cx, cy))
            }
        }
        for l in changeLabels {
            inside.append(SVGLabelPlacer.svg(l.text, at: placer.place(l.text, near: l.x, l.y, gap: 8), color: "#000",
                                             cssClass: "floor-change-label"))
        }
        body += inside + ["</g>"]
        body += scaleBar(left: p.left + 12, bottom: p.top + p.height - 14, pixelsPerMeter: p.scale / max(metersPerUnit, 1e-9),
                         widthM: floor.width * metersPerUnit)
        return body
    }

    /// A method's line: a series style unlike the estimates' (blue, solid,
    /// dots) and the surveyed route's (green, dashed): dash-dot red with
    /// diamonds, dashed purple with crosses, ….
    static func methodStyle(_ k: Int) -> SeriesStyle { seriesStyle(k + 3) }
}
