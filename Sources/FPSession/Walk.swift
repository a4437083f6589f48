import FPCore

/// A scripted walk: the target point moves along the scenario's waypoints at
/// walking pace, and one document is cut every 2 s.
///
/// Position rule: each document's position is the route point at the middle
/// of its window (`route-interpolated-at-window-midpoint`), i.e. the distance
/// walked at time t is `t × pace` in map units, interpolated linearly along
/// the polyline. The last window is kept only if it lasts at least 1 s.
package struct Walk: Sendable {
    package static let windowMs = 2000
    package static let minimumLastWindowMs = 1000
    package static let positionRule = "route-interpolated-at-window-midpoint"

    package var level: String
    package var scenarioId: String
    package var route: Route
    package var pace: WalkPace
    package var scale: MapScale
    package var sessionId: String
    /// The first document's `seq`: a walk over several floors numbers its
    /// documents on through every floor's part.
    package var firstSeq: Int

    package init(level: String, scenarioId: String, route: Route, pace: WalkPace, scale: MapScale, sessionId: String,
                 firstSeq: Int = 1) {
        self.firstSeq = firstSeq
        self.level = level
        self.scenarioId = scenarioId
        self.route = route
        self.pace = pace
        self.scale = scale
        self.sessionId = sessionId
    }

    /// Time to walk the whole route, rounded up to the millisecond.
    package var durationMs: Int {
        Int((route.length / pace.unitsPerSecond(scale: scale) * 1000).rounded(.up))
    }

    /// Where the surveyor should be at a time (ms from the walk's start).
    package func position(atMs ms: Int) -> MapPoint {
        route.point(atDistance: Double(ms) / 1000 * pace.unitsPerSecond(scale: scale))
    }

    package func nextWaypoint(atMs ms: Int) -> Int {
        route.nextWaypointIndex(atDistance: Double(ms) / 1000 * pace.unitsPerSecond(scale: scale))
    }

    /// The document windows [start, end) in ms.
    package var windows: [Range<Int>] {
        let total = durationMs
        var out: [Range<Int>] = []
        var start = 0
        while start < total {
            let end = min(start + Self.windowMs, total)
            if end - start == Self.windowMs || end - start >= Self.minimumLastWindowMs { out.append(start..<end) }
            start = end
        }
        return out
    }

    package func run(_ setup: CaptureSetup, progress: @escaping (CaptureProgress) -> Void = { _ in })
        async throws -> [MeasurementDocument]
    {
        let device = setup.device.snapshot()
        let walk = self
        let capture = Capture(setup: setup, level: level, position: { walk.position(atMs: $0) })
        let total = durationMs
        let ends = windows.map(\.upperBound)
        let result = try await capture.run(durationMs: total, readSensorsAtMs: ends) { t, sink in
            progress(CaptureProgress(
                elapsedMs: t, totalMs: total, counts: StaticMeasurement.counts(sink),
                target: walk.position(atMs: t), nextWaypoint: walk.nextWaypoint(atMs: t),
                documentsCut: t / Walk.windowMs))
        }
        let builder = DocumentBuilder(setup: setup, device: device)
        let samples = result.samples
        var documents: [MeasurementDocument] = []
        for (index, window) in windows.enumerated() {
            // One at exactly a window's end belongs to the next window, except at the end of the walk.
            let end = index == windows.count - 1 ? window.upperBound + 1 : window.upperBound
            let mid = (window.lowerBound + window.upperBound) / 2
            let p = position(atMs: mid)
            var doc = builder.document(
                level: level, mode: .walk, position: .init(x: p.x, y: p.y, rule: Self.positionRule, atMs: mid),
                startMs: window.lowerBound, endMs: window.upperBound, samples: samples.window(window.lowerBound..<end),
                statuses: result.statuses, motion: result.motion(atMs: window.upperBound))
            doc.sessionId = sessionId
            doc.seq = firstSeq + index
            doc.scenarioId = scenarioId
            doc.window = .init(
                startMs: window.lowerBound, endMs: window.upperBound,
                start: ISOTime.string(setup.clock.wallTime(atMs: window.lowerBound)),
                end: ISOTime.string(setup.clock.wallTime(atMs: window.upperBound)))
            documents.append(doc)
        }
        return documents
    }
}
