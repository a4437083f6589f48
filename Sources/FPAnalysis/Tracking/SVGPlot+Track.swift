import Foundation

extension SVGPlot {
    /// One position of a track: where it was estimated and, when known, where
    /// it truly was; `map` and `truthMap` name their floors (nil: the only one).
    package struct TrackSample: Sendable {
        package var timeS: Double
        package var x: Double, y: Double
        package var truth: (x: Double, y: Double)?
        package var errorM: Double?
        package var accuracyM: Double?
        package var map: String?
        package var truthMap: String?
        package init(timeS: Double, x: Double, y: Double, truth: (x: Double, y: Double)?, errorM: Double?, accuracyM: Double?,
                     map: String? = nil, truthMap: String? = nil) {
            self.timeS = timeS
            self.x = x
            self.y = y
            self.truth = truth
            self.errorM = errorM
            self.accuracyM = accuracyM
            self.map = map
            self.truthMap = truthMap
        }
    }

    /// A floor a track is drawn on: its map's extent (map units), picture and walls.
    package struct TrackFloor: Sendable {
        package var map: String
        package var width: Double, height: Double
        package var floorPlan: FloorPlan?
        package var outline: [(x: Double, y: Double)]?
        package init(map: String, width: Double, height: Double, floorPlan: FloorPlan? = nil,
                     outline: [(x: Double, y: Double)]? = nil) {
            self.map = map
            self.width = width
            self.height = height
            self.floorPlan = floorPlan
            self.outline = outline
        }
    }

    /// A track on its floors, one map panel each, side by side (x right, y
    /// down, metre axes and a scale bar): the true path as a grey line, the
    /// estimates as a blue line with dots, clipped to the panel; where the
    /// estimated floor changes, a black square on both floors' panels and a
    /// line in the time panel. Below, the error (red) and the filter's stated
    /// accuracy (dashed) over time. `circles`: this many positions, spread
    /// over the track, get their stated accuracy drawn as a circle (radius
    /// accuracy_m / `metersPerUnit`), with the true point they should hold.
    /// A sample whose `map` is nil is on the first floor.
    package static func track(title: String, samples: [TrackSample], floors: [TrackFloor], circles: Int = 0,
                              metersPerUnit: Double = 1) -> String {
        let panel = floors.count > 1 ? 420.0 : 700.0, left = 50.0, gap = 60.0, top = 50.0
        let areas = floors.map { mapArea(mapWidth: $0.width, mapHeight: $0.height, width: panel, height: panel * 1.2) }
        let h = areas.map(\.height).max() ?? 0
        let width = left + floors.indices.map { areas[$0].width + gap }.reduce(0, +) - gap + 30
        let onFloor = { (map: String?) in floors.firstIndex { $0.map == map } ?? 0 }
        let chosen = Set(accuracyCircles(samples, count: circles))
        let changes = floorChanges(samples, floor: onFloor)
        var body: [String] = []
        var x = left
        var outside = 0
        for (i, floor) in floors.enumerated() {
            let panelArea = TrackPanel(index: i, left: x, top: top, width: areas[i].width, height: areas[i].height,
                                       scale: areas[i].scale)
            let mine = samples.indices.filter { onFloor(samples[$0].map) == i }
            outside += mine.filter { !(0...floor.width).contains(samples[$0].x) || !(0...floor.height).contains(samples[$0].y) }.count
            body += trackPanel(panelArea, floor: floor, samples: samples, indices: mine,
                               truth: samples.filter { onFloor($0.truthMap ?? $0.map) == i }.compactMap(\.truth),
                               circled: mine.filter(chosen.contains), changes: changes, floorIndex: onFloor,
                               metersPerUnit: metersPerUnit, titled: floors.count > 1)
            x += areas[i].width + gap
        }
        let legendY = top + h + 58
        let circled = chosen.isEmpty ? "" : "  <tspan fill=\"#ff7f0e\">◯ stated accuracy of \(chosen.count) positions (– – to the truth)</tspan>"
        let changed = changes.isEmpty ? "" : "  <tspan fill=\"#000\">■ floor change</tspan>"
        let clipped = outside == 0 ? "" : "  <tspan fill=\"#555\">(\(outside) estimates off the map, cut at its edge)</tspan>"
        body.append("<text class=\"legend\" x=\"\(f(left))\" y=\"\(f(legendY))\"><tspan fill=\"#999\">━ true path</tspan>  <tspan fill=\"#1f77b4\">● estimates</tspan>\(circled)\(changed)\(clipped)</text>")
        let panelTop = legendY + 44
        body += trackTimePanel(samples, changes: changes, floors: floors, left: 60, top: panelTop, width: width - 120)
        return document(width: Int(width.rounded(.up)), height: Int(panelTop + 160 + 50), title: title, body)
    }

    /// Where the estimated floor changes: the index of the first sample on the new floor.
    static func floorChanges(_ samples: [TrackSample], floor: (String?) -> Int) -> [Int] {
        samples.indices.dropFirst().filter { floor(samples[$0].map) != floor(samples[$0 - 1].map) }
    }

    /// The error and the stated accuracy over time, floor changes as dashed lines named by the floor arrived at.
    static func trackTimePanel(_ samples: [TrackSample], changes: [Int], floors: [TrackFloor], left: Double, top: Double,
                               width: Double) -> [String] {
        let t1 = max(1, samples.map(\.timeS).max() ?? 1)
        let e1 = max(1, (samples.compactMap(\.errorM) + samples.compactMap(\.accuracyM)).max() ?? 1)
        let (lines, px, py) = axes(x0: 0, x1: t1, y0: 0, y1: e1, width: width, height: 160, left: left, top: top,
                                   xLabel: "time (s)", yLabel: "metres")
        var body = lines
        for i in changes {
            let x = px(samples[i].timeS)
            body.append("<g class=\"floor-change-time\"><line x1=\"\(f(x))\" y1=\"\(f(top))\" x2=\"\(f(x))\" y2=\"\(f(top + 160))\" stroke=\"#000\" stroke-dasharray=\"2 3\"/>"
                + "<text x=\"\(f(x + 3))\" y=\"\(f(top + 11))\" font-size=\"11\">→ \(escape(samples[i].map ?? floors.first?.map ?? ""))</text></g>")
        }
        let errors = samples.compactMap { s in s.errorM.map { "\(f(px(s.timeS))),\(f(py($0)))" } }
        if !errors.isEmpty {
            body.append("<polyline class=\"error\" fill=\"none\" stroke=\"#d62728\" points=\"\(errors.joined(separator: " "))\"><title>error (m)</title></polyline>")
        }
        let accuracy = samples.compactMap { s in s.accuracyM.map { "\(f(px(s.timeS))),\(f(py($0)))" } }
        if !accuracy.isEmpty {
            body.append("<polyline class=\"accuracy\" fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\" points=\"\(accuracy.joined(separator: " "))\"><title>stated accuracy (m)</title></polyline>")
        }
        body.append("<text class=\"legend\" x=\"\(f(left + 10))\" y=\"\(f(top - 6))\"><tspan fill=\"#d62728\">— error from the true position</tspan>  <tspan fill=\"#555\">- - stated accuracy (the filter's own estimate)</tspan></text>")
        return body
    }

    /// `count` positions with an accuracy, evenly spread over the track (indices).
    static func accuracyCircles(_ samples: [TrackSample], count: Int) -> [Int] {
        let with = samples.indices.filter { samples[$0].accuracyM != nil }
        guard count > 0, !with.isEmpty else { return [] }
        let n = min(count, with.count)
        return (0..<n).map { with[($0 * 2 + 1) * with.count / (2 * n)] }
    }
}
