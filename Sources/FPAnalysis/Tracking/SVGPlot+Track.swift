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
        /// Each method's own fix of the window (map units), before the filter: `fprint track --json`'s `fixes`.
        package var methods: [(name: String, x: Double, y: Double)] = []
        package init(timeS: Double, x: Double, y: Double, truth: (x: Double, y: Double)?, errorM: Double?, accuracyM: Double?,
                     map: String? = nil, truthMap: String? = nil, methods: [(name: String, x: Double, y: Double)] = []) {
            self.timeS = timeS
            self.x = x
            self.y = y
            self.truth = truth
            self.errorM = errorM
            self.accuracyM = accuracyM
            self.map = map
            self.truthMap = truthMap
            self.methods = methods
        }
    }

    /// A floor a track is drawn on: its map's extent (map units), picture and
    /// walls, and the surveyed route(s) on it (map units), where the radio map
    /// was measured: a walk off them shows how far it strayed.
    package struct TrackFloor: Sendable {
        package var map: String
        package var width: Double, height: Double
        package var floorPlan: FloorPlan?
        package var outline: [(x: Double, y: Double)]?
        package var surveyed: [[(x: Double, y: Double)]]
        package init(map: String, width: Double, height: Double, floorPlan: FloorPlan? = nil,
                     outline: [(x: Double, y: Double)]? = nil, surveyed: [[(x: Double, y: Double)]] = []) {
            self.map = map
            self.width = width
            self.height = height
            self.floorPlan = floorPlan
            self.outline = outline
            self.surveyed = surveyed
        }
    }

    /// A track on its floors, one map panel each, side by side (x right, y
    /// down, metre axes and a scale bar): the true path as a wide grey line,
    /// the estimates as a thin blue line with dots, the surveyed routes as a
    /// dashed green line, clipped to the panel; where the estimated floor
    /// changes, a black square on both floors' panels. Below, the error (red)
    /// and the filter's stated accuracy (dashed) over time, broken where
    /// positions are missing or unscored, with the reported and the true floor
    /// changes. `circles`: up to this many positions, spread over the track,
    /// get their stated accuracy drawn as an unfilled circle (radius
    /// accuracy_m / `metersPerUnit`), with the true point they should hold;
    /// one whose centre lies in another's circle is left out, so they do not
    /// pile into a blob. A sample whose `map` is nil is on the first floor.
    package static func track(title: String, samples: [TrackSample], floors: [TrackFloor], circles: Int = 0,
                              metersPerUnit: Double = 1) -> String {
        let panel = floors.count > 1 ? 420.0 : 700.0, left = 50.0, gap = 60.0, top = 50.0
        let areas = floors.map { mapArea(mapWidth: $0.width, mapHeight: $0.height, width: panel, height: panel * 1.2) }
        let h = areas.map(\.height).max() ?? 0
        let width = left + floors.indices.map { areas[$0].width + gap }.reduce(0, +) - gap + 30
        let onFloor = { (map: String?) in floors.firstIndex { $0.map == map } ?? 0 }
        let chosen = Set(apartCircles(samples, accuracyCircles(samples, count: circles), floor: onFloor,
                                      metersPerUnit: metersPerUnit))
        let changes = floorChanges(samples, floor: onFloor)
        let gaps = trackGaps(samples)
        // The methods' own fixes, in the order they first appear; each drawn in a series style of its own.
        var methods: [String] = []
        for s in samples { for m in s.methods where !methods.contains(m.name) { methods.append(m.name) } }
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
                               circled: mine.filter(chosen.contains), changes: changes, gaps: gaps, methods: methods, floorIndex: onFloor,
                               metersPerUnit: metersPerUnit, titled: floors.count > 1)
            x += areas[i].width + gap
        }
        let legendY = top + h + 58
        body += trackLegend(left: left, y: legendY, right: width - 20, methods: methods, circled: chosen.count, changed: !changes.isEmpty,
                            surveyed: floors.contains { !$0.surveyed.isEmpty }, outside: outside)
        let panelTop = legendY + 44
        body += trackTimePanel(samples, changes: changes, trueChanges: trueFloorChanges(samples, floor: onFloor), gaps: gaps,
                               floors: floors, left: 60, top: panelTop, width: width - 120)
        return document(width: Int(width.rounded(.up)), height: Int(panelTop + 160 + 50), title: title, body)
    }

    /// Where the estimated floor changes: the index of the first sample on the new floor.
    static func floorChanges(_ samples: [TrackSample], floor: (String?) -> Int) -> [Int] {
        samples.indices.dropFirst().filter { floor(samples[$0].map) != floor(samples[$0 - 1].map) }
    }

    /// Where the true floor changes: the first sample whose truth is on the new floor.
    static func trueFloorChanges(_ samples: [TrackSample], floor: (String?) -> Int) -> [Int] {
        let known = samples.indices.filter { samples[$0].truth != nil }
        return zip(known, known.dropFirst()).compactMap { a, b in
            floor(samples[a].truthMap ?? samples[a].map) != floor(samples[b].truthMap ?? samples[b].map) ? b : nil
        }
    }

    /// The samples after which the track has a hole: the next one comes more
    /// than three usual steps (and 3 s) later, so a line must not join them.
    static func trackGaps(_ samples: [TrackSample]) -> Set<Int> {
        let steps = zip(samples, samples.dropFirst()).map { $1.timeS - $0.timeS }
        guard let usual = Reduction.median(steps) else { return [] }
        let longest = max(3, 3 * usual)
        return Set(steps.indices.filter { steps[$0] > longest })
    }

    /// `count` positions with an accuracy, evenly spread over the track (indices).
    static func accuracyCircles(_ samples: [TrackSample], count: Int) -> [Int] {
        let with = samples.indices.filter { samples[$0].accuracyM != nil }
        guard count > 0, !with.isEmpty else { return [] }
        let n = min(count, with.count)
        return (0..<n).map { with[($0 * 2 + 1) * with.count / (2 * n)] }
    }

    /// Of the `chosen` circles, those whose centre lies in no circle kept
    /// before it on the same floor (and no kept centre lies in theirs).
    static func apartCircles(_ samples: [TrackSample], _ chosen: [Int], floor: (String?) -> Int, metersPerUnit: Double) -> [Int] {
        var kept: [Int] = []
        for i in chosen {
            let a = samples[i]
            let clear = kept.allSatisfy { j in
                let b = samples[j]
                guard floor(a.map) == floor(b.map) else { return true }
                let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() * metersPerUnit
                return d >= max(a.accuracyM ?? 0, b.accuracyM ?? 0)
            }
            if clear { kept.append(i) }
        }
        return kept
    }
}
