import FPAnalysis
import FPCore
import Foundation

/// How `fprint track` shows positions: JSON lines (piped, --json) or a live line.
struct TrackView: Sendable {
    var json: Bool
    var truth: Bool
    /// Auto-map: map_confidence is printed.
    var auto: Bool
    /// Windows a new map must hold (auto-map), said beside the floor changes.
    var hold: Int = 1
}

/// What a track run printed and measured, for its closing summary.
struct TrackReport: Sendable {
    let view: TrackView
    var samples = 0
    var positions = 0
    var endMs = 0
    var evaluation = TrackEvaluation()
    var lastMap: String?
    var mapChanges = 0

    init(view: TrackView) { self.view = view }

    static func rounded(_ v: Double, _ places: Double) -> JSONValue { .double((v * places).rounded() / places) }

    /// One position line (JSON) or the live line.
    /// `radios`: those heard in the position's window, printed so a plot can name them.
    mutating func record(_ point: TrackPoint?, atMs t: Int, wallTime: Date, truth: (map: String, point: MapPoint)?,
                         radios: [String] = []) {
        guard let p = point else {
            if !view.json { Terminal.status(String(format: "%6.1f s  waiting for a first fix…", Double(t) / 1000)) }
            return
        }
        positions += 1
        if let last = lastMap, last != p.map { mapChanges += 1 }
        lastMap = p.map
        var entry: TrackEvaluation.Entry?
        if view.truth, let truth { entry = evaluation.add(p, truthMap: truth.map, truthX: truth.point.x, truthY: truth.point.y) }
        if view.json {
            var o: JSONObject = [
                "time": .string(ISOTime.string(wallTime)), "t_ms": .int(Int64(t)), "map": .string(p.map),
                "floor": p.floor.map { .int(Int64($0)) } ?? .null,
                "x": Self.rounded(p.x, 100), "y": Self.rounded(p.y, 100),
                "x_m": Self.rounded(p.xM, 1000), "y_m": Self.rounded(p.yM, 1000),
                "accuracy_m": Self.rounded(p.accuracyM, 1000), "method": .string(p.method.rawValue),
                "transmitters_used": .int(Int64(p.transmittersUsed)),
            ]
            if !radios.isEmpty { o["radios"] = .array(radios.map { .string($0) }) }
            if let c = p.mapConfidence { o["map_confidence"] = Self.rounded(c, 1000) }
            // The window's own fixes before filtering, metres; exact, for checking the methods.
            var fixes: JSONObject = [:]
            for (name, fix) in [("wknn", p.wknnFix), ("beacons", p.beaconsFix)] {
                guard let fix else { continue }
                fixes[name] = ["x_m": .double(fix.x * p.metersPerUnit), "y_m": .double(fix.y * p.metersPerUnit),
                               "sigma_m": Self.rounded(fix.variance.squareRoot(), 1000), "transmitters": .int(Int64(fix.transmitters))]
            }
            o["fixes"] = .object(fixes)
            if let a = p.accuracyParts {
                o["accuracy_parts"] = ["kalman_m": Self.rounded(a.kalmanM, 1000), "snap_m": Self.rounded(a.snapM, 1000),
                                       "belief_mode_m": Self.rounded(a.belief.modeM, 1000),
                                       "belief_radius_m": Self.rounded(a.belief.radiusM, 1000),
                                       "belief_share_near": Self.rounded(a.belief.shareNear, 1000),
                                       "kalman_recent_m": Self.rounded(a.recentKalmanM, 1000)]
            }
            if let truth, let entry {
                o["truth"] = ["map": .string(truth.map), "x": Self.rounded(truth.point.x, 100), "y": Self.rounded(truth.point.y, 100)]
                o["error_m"] = Self.rounded(entry.errorM, 1000)
            }
            Terminal.out(CanonicalJSON.string(.object(o)))
        } else {
            // Reading order; on a narrow terminal the map units, the method and the map go first.
            var parts: [StatusLine.Part] = [
                .init(text: String(format: "%6.1f s", Double(t) / 1000), rank: 0),
                .init(text: p.map + (p.floor.map { " floor \($0)" } ?? ""), rank: 3),
                .init(text: String(format: "(%.1f, %.1f) m", p.xM, p.yM), rank: 1),
                .init(text: String(format: "x %.0f y %.0f", p.x, p.y), rank: 6),
                .init(text: String(format: "±%.1f m", p.accuracyM), rank: 2),
                .init(text: "\(p.method.rawValue), \(Terminal.counted(p.transmittersUsed, "transmitter"))", rank: 5),
            ]
            if let c = p.mapConfidence { parts.append(.init(text: String(format: "map %.0f %% sure", c * 100), rank: 4)) }
            if let entry { parts.append(.init(text: String(format: "error %.1f m%@", entry.errorM, entry.floorHit ? "" : " (wrong floor)"), rank: 1)) }
            if p.coasting { parts.append(.init(text: "(no fix: predicted)", rank: 2)) }
            Terminal.status(StatusLine.fit(parts, width: Terminal.columns))
        }
    }

    /// The closing summary: stderr as text, plus a JSON line with --json.
    func finish(cpuSeconds seconds: Double) {
        if !view.json { Terminal.endStatus() }
        var line = "track: \(Terminal.counted(positions, "position")) over \(String(format: "%.1f", Double(endMs) / 1000)) s"
            + " from \(Terminal.counted(samples, "sample")) (\(String(format: "%.2f", seconds)) s of wall time"
            + (seconds > 0 ? String(format: ", %.0f samples/s", Double(samples) / seconds) : "") + ")"
        if view.auto, mapChanges > 0 { line += "; \(Terminal.counted(mapChanges, "map change"))" }
        Terminal.err(line)
        var summary: JSONObject = ["positions": .int(Int64(positions)), "samples": .int(Int64(samples)),
                                   "duration_s": Self.rounded(Double(endMs) / 1000, 1000),
                                   "wall_s": Self.rounded(seconds, 1000)]
        if view.auto { summary["map_changes"] = .int(Int64(mapChanges)) }
        if view.truth {
            if let s = evaluation.summary {
                Terminal.err(String(format: "tracking error: median %.2f m, p90 %.2f m, max %.2f m over %d fixes; within the stated accuracy %.0f %%; floor hit %.1f %%; first fix after %.1f s",
                                    s.medianM, s.p90M, s.maxM, s.fixes, s.withinAccuracyRate * 100, s.floorHitRate * 100,
                                    Double(s.firstFixMs ?? 0) / 1000))
                summary["median_m"] = Self.rounded(s.medianM, 1000)
                summary["p90_m"] = Self.rounded(s.p90M, 1000)
                summary["max_m"] = Self.rounded(s.maxM, 1000)
                summary["floor_hit_rate"] = Self.rounded(s.floorHitRate, 10000)
                summary["within_accuracy_rate"] = Self.rounded(s.withinAccuracyRate, 10000)
                summary["first_fix_s"] = s.firstFixMs.map { Self.rounded(Double($0) / 1000, 1000) } ?? .null
                if !s.floorChangeDelaysMs.isEmpty {
                    let said = s.floorChangeDelaysMs.map { $0.map { String(format: "%+.0f s", Double($0) / 1000) } ?? "never" }
                    Terminal.err("floor changes: \(said.count), reported \(said.joined(separator: ", ")) from the true change (the passage's middle), holding \(Terminal.counted(view.hold, "window"))")
                    summary["floor_change_delays_s"] = .array(s.floorChangeDelaysMs.map { $0.map { Self.rounded(Double($0) / 1000, 1000) } ?? .null })
                }
            } else {
                Terminal.err("note: no position was made, so there is no tracking error to tell")
            }
        }
        if view.json { Terminal.out(CanonicalJSON.string(["summary": .object(summary)])) }
    }
}
