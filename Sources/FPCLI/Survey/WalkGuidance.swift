import FPConfig
import FPCore
import FPSession
import Foundation

/// What a surveyor needs to keep up with a walk: a countdown before the
/// target starts moving, and the next waypoint in metres and direction.
enum WalkGuidance {
    /// Seconds of "get ready" before a walk: `--ready` if given, else 5 on a
    /// terminal; none when stderr is piped or time is virtual (`--fast`),
    /// where nobody is walking.
    static func readySeconds(option: Int?, fast: Bool) -> Int {
        option ?? (Terminal.stderrIsTTY && !fast ? 5 : 0)
    }

    /// Counts down on stderr, one line per second (in place on a terminal);
    /// Ctrl-C cancels it like the walk itself.
    static func countdown(seconds: Int, start: MapPoint, scale: MapScale) async throws {
        guard seconds > 0 else { return }
        let at = String(format: "stand at waypoint 1 (%.0f, %.0f)", start.x, start.y)
        for left in stride(from: seconds, to: 0, by: -1) {
            // The count first: on a narrow terminal the place in metres goes, then the map units.
            let parts: [StatusLine.Part] = [.init(text: "get ready: the walk starts in \(left) s;", rank: 0),
                                            .init(text: at, rank: 1), .init(text: "= " + metres(start, scale), rank: 2)]
            if Terminal.stderrIsTTY {
                Terminal.status(StatusLine.fit(parts, width: Terminal.columns, separator: " "))
            } else {
                Terminal.err(parts.map(\.text).joined(separator: " "))
            }
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        if Terminal.stderrIsTTY { Terminal.endStatus() }
        Terminal.err("go: walk with the target")
    }

    /// Between two floors of a walk: where to go and how long the walk
    /// waits (the stairs' or the lift's time; 0 with --fast), counted down
    /// as the first countdown is. Ctrl-C cancels it like the walk.
    static func passage(to part: FloorWalk.Part, seconds: Int, of parts: Int, index: Int) async throws {
        let start = part.walk.route.waypoints[0]
        Terminal.err(String(format: "part %d of %d: take the %@ to %@ and stand at (%.0f, %.0f) = %@", index + 1, parts,
                            part.via?.rawValue ?? "stairs", part.map.id, start.x, start.y, metres(start, part.map.scale)))
        for left in stride(from: seconds, to: 0, by: -1) {
            let line = "on the \(part.via?.rawValue ?? "stairs"): the walk goes on on \(part.map.id) in \(left) s"
            if Terminal.stderrIsTTY {
                Terminal.status(StatusLine.fit([.init(text: line, rank: 0)], width: Terminal.columns, separator: " "))
            } else if left == seconds || left % 5 == 0 {
                Terminal.err(line)
            }
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        if Terminal.stderrIsTTY && seconds > 0 { Terminal.endStatus() }
        Terminal.err("go: walk with the target on \(part.map.id)")
    }

    /// "(20.0 m, 37.3 m) from the plan's origin".
    static func metres(_ p: MapPoint, _ scale: MapScale) -> String {
        String(format: "%.1f m right, %.1f m down from the plan's origin", p.x * scale.metersPerUnit, p.y * scale.metersPerUnit)
    }

    /// "next: waypoint 2, 12.6 m ← left": how far the next waypoint is from the
    /// target point, and which way on the plan (x right, y down).
    static func toward(_ waypoint: Int, of route: Route, from target: MapPoint, scale: MapScale) -> String {
        guard route.waypoints.indices.contains(waypoint) else { return "" }
        let w = route.waypoints[waypoint]
        let dx = w.x - target.x, dy = w.y - target.y
        let distance = (dx * dx + dy * dy).squareRoot() * scale.metersPerUnit
        return String(format: "next: waypoint %d, %.1f m", waypoint + 1, distance) + (distance < 0.05 ? "" : " " + direction(dx: dx, dy: dy))
    }

    /// One of eight directions on the plan; "up" is toward smaller y.
    static func direction(dx: Double, dy: Double) -> String {
        let names = ["→ right", "↗ up-right", "↑ up", "↖ up-left", "← left", "↙ down-left", "↓ down", "↘ down-right"]
        let angle = atan2(-dy, dx)  // counter-clockwise from "right", y flipped to point up
        let sector = Int((angle / (.pi / 4)).rounded()) & 7
        return names[sector]
    }
}
