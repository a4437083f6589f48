import FPCore
import Foundation

// `make bench-tracking` (`fprint-bench --tracking-figures --fprint PATH
// [--runs N] [--seeds a,b,c] [--out FILE]`, issue 59): the figures
// docs/positioning.md publishes for tracking on simulated walks, from seeds
// drawn at random (printed, so a run can be repeated with --seeds) instead of
// chosen ones. Surveys every J floor at seed 1 (as the docs say), then runs
// the real binary over every seed, map and method, the floor-change
// scenarios and walks off the surveyed route, and writes a markdown table.
// Exit 1 when the honesty goal (item 1) is missed.

/// What one `track --truth --json` run summarised.
struct TrackRun: Sendable {
    var seed: UInt64
    var medianM: Double
    var p90M: Double
    var within: Double
    var floorHit: Double
    var mapChanges: Int
    var delaysS: [Double?]
    /// Reported map changes more than `awayS` from any true floor change.
    var changesAway: Int
    /// Off-route: the walker's distance from the surveyed path (m), median over the walk.
    var offPathM: Double?
}

struct TrackingFigures: Sendable {
    static let maps = ["J1NP", "J2NP", "J3NP"]
    static let methods = ["wknn", "beacons", "fused"]
    /// Item 1: a run is honest when 55–80 % of its fixes lie within the stated accuracy…
    static let honest = 0.55...0.80
    /// …and at least this share of runs per map and method (wknn, fused) is.
    static let honestRuns = 0.90
    /// A reported map change this far (s) from every true one is a flicker away from the stairs or lift.
    static let awayS = 10.0

    let fprint: String
    let dir: String
    let seeds: [UInt64]
    let env: [String: String]
    let config: String

    init(fprint: String, dir: String, seeds: [UInt64]) {
        self.fprint = fprint
        self.dir = dir
        self.seeds = seeds
        var env = benchEnvironment(dir)
        env["FPRINT_DB"] = dir + "/survey.sqlite"
        self.env = env
        config = FileManager.default.currentDirectoryPath + "/Config/app-config.json"
    }

    /// `count` distinct seeds, drawn from the system's randomness.
    static func draw(_ count: Int) -> [UInt64] {
        var seen = Set<UInt64>()
        while seen.count < count { seen.insert(UInt64.random(in: 100...999_999)) }
        return seen.sorted()
    }

    func fprintRun(_ arguments: [String]) throws -> Measured {
        let m = try runMeasured(fprint, arguments + ["--config", config], environment: env, samplePeak: false)
        guard m.status == 0 else {
            throw BenchError("fprint \(arguments.joined(separator: " ")) exited \(m.status): \(m.stderr.suffix(400))")
        }
        return m
    }

    func survey() throws {
        for map in Self.maps {
            _ = try fprintRun(["walk", "--simulate", "--scenario", "scenario\(map)1", "--seed", "1", "--fast"])
        }
    }

    /// One tracked walk, summarised; `route`: the surveyed path (map units) to measure the walker's distance from.
    func track(_ scenario: String, seed: UInt64, extra: [String], route: [MapPoint]? = nil) throws -> TrackRun {
        let m = try fprintRun(["track", "--simulate", "--scenario", scenario, "--seed", String(seed), "--fast", "--truth", "--json",
                               "--path-loss-exponent", "2.2"] + extra)
        let lines = m.stdout.split(separator: "\n").map { try? CanonicalJSON.parse(Data($0.utf8)) }
        guard let last = lines.last??["summary"] else { throw BenchError("\(scenario) seed \(seed): no summary line") }
        var distances: [Double] = []
        var reported: [(t: Double, map: String)] = [], truth: [(t: Double, map: String)] = []
        for case let line? in lines.dropLast() {
            guard let t = line["t_ms"]?.doubleValue, let map = line["map"]?.stringValue,
                  let tm = line["truth"]?["map"]?.stringValue else { continue }
            if reported.last?.map != map { reported.append((t / 1000, map)) }
            if truth.last?.map != tm { truth.append((t / 1000, tm)) }
            if let route, let x = line["truth"]?["x"]?.doubleValue, let y = line["truth"]?["y"]?.doubleValue {
                distances.append(Self.distance(MapPoint(x: x, y: y), toPath: route) * MapScale.jBuilding.metersPerUnit)
            }
        }
        let trueChanges = truth.dropFirst().map(\.t)
        let away = reported.dropFirst().filter { c in !trueChanges.contains { abs($0 - c.t) <= Self.awayS } }.count
        let delays = (last["floor_change_delays_s"]?.arrayValue ?? []).map(\.doubleValue)
        return TrackRun(seed: seed, medianM: last["median_m"]?.doubleValue ?? .nan, p90M: last["p90_m"]?.doubleValue ?? .nan,
                        within: last["within_accuracy_rate"]?.doubleValue ?? .nan,
                        floorHit: last["floor_hit_rate"]?.doubleValue ?? .nan,
                        mapChanges: Int(last["map_changes"]?.intValue ?? 0), delaysS: delays, changesAway: away,
                        offPathM: distances.isEmpty ? nil : median(distances))
    }

    /// Shortest distance from `p` to the polyline (map units).
    static func distance(_ p: MapPoint, toPath path: [MapPoint]) -> Double {
        var best = Double.infinity
        for (a, b) in zip(path, path.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy
            let t = l2 > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2)) : 0
            best = min(best, MapPoint(x: a.x + t * dx, y: a.y + t * dy).distance(to: p))
        }
        return best
    }

    /// The scenario's points (map units) from Scenarios/scenarios.json.
    static func route(_ scenario: String) throws -> [MapPoint] {
        guard let data = FileManager.default.contents(atPath: "Scenarios/scenarios.json"),
              let s = try CanonicalJSON.parse(data)["scenarios"]?.arrayValue?.first(where: { $0["scenarioID"]?.stringValue == scenario }),
              let points = s["points"]?.arrayValue else { throw BenchError("Scenarios/scenarios.json: no \(scenario)") }
        return points.compactMap { p in p["X"]?.doubleValue.flatMap { x in p["Y"]?.doubleValue.map { MapPoint(x: x, y: $0) } } }
    }

    /// Runs `jobs` two at a time (the machine's cores), keeping their order.
    static func parallel<T: Sendable>(_ jobs: [@Sendable () throws -> T]) throws -> [T] {
        let results = ResultBox<T>(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            for i in stride(from: lane, to: jobs.count, by: 2) { results.set(i, Result { try jobs[i]() }) }
        }
        return try results.values.map { try $0!.get() }
    }
}

final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Result<T, any Error>?]
    init(count: Int) { items = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<T, any Error>) { lock.withLock { items[i] = r } }
    var values: [Result<T, any Error>?] { lock.withLock { items } }
}

/// Nearest-rank percentile (as eval's).
func percentile(_ xs: [Double], _ q: Double) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return .nan }
    return s[max(0, min(s.count - 1, Int((q * Double(s.count)).rounded(.up)) - 1))]
}

/// "1.52 (1.23–1.78)": the median across runs and their 10th–90th percentile.
func spread(_ xs: [Double], scale: Double = 1, format: String = "%.2f") -> String {
    String(format: "\(format) (\(format)–\(format))", median(xs) * scale, percentile(xs, 0.1) * scale, percentile(xs, 0.9) * scale)
}

func runTrackingFigures(fprint: String, dir: String, runs: Int, seeds given: [UInt64]?, out: String?) throws -> Bool {
    let seeds = given ?? TrackingFigures.draw(runs)
    say("tracking figures: seeds \(seeds.map(String.init).joined(separator: ",")) (--seeds … repeats this run)")
    let bench = TrackingFigures(fprint: fprint, dir: dir, seeds: seeds)
    try bench.survey()
    var table = FigureTable(
        intro: "`make bench-tracking` (fprint-bench --tracking-figures), \(ISOTime.string(Date()).prefix(10)), "
            + "\(seeds.count) random seeds: \(FigureTable.list(seeds)). Surveys `walk --simulate --seed 1` "
            + "of every floor; each run `track --simulate --scenario scenario<MAP>1 --seed S --fast --truth --path-loss-exponent 2.2`. "
            + "Per map and method: the median across runs and, in brackets, their 10th–90th percentile.",
        columns: ["map", "method", "median error (m)", "p90 error (m)", "within the stated accuracy (%)", "runs within 55–80 %", "goal"])
    var met = true
    for map in TrackingFigures.maps {
        for method in TrackingFigures.methods {
            let results = try bench.runs("scenario\(map)1", seeds: seeds, extra: ["--method", method])
            let honest = Double(results.filter { TrackingFigures.honest.contains($0.within) }.count) / Double(results.count)
            let goal = method == "beacons" ? "—" : honest >= TrackingFigures.honestRuns ? "PASS" : "MISS"
            if goal == "MISS" { met = false }
            let worst = results.sorted { $0.within < $1.within }.prefix(3).map { String(format: "%llu: %.0f %%", $0.seed, $0.within * 100) }
            say("\(map) \(method): honest runs \(String(format: "%.0f", honest * 100)) % \(goal) (lowest: \(worst.joined(separator: ", ")))")
            table.row([map, method] + TrackRun.errorCells(results) + [String(format: "%.0f %%", honest * 100), goal])
        }
    }
    var md = table.markdown
    md += "\nGoal (issue 59): for WKNN and fused, 55–80 % of a run's fixes within the stated accuracy in at least 90 % of runs.\n"
    md += try floorFigures(bench)
    md += try offRouteFigures(bench)
    say("")
    say(md)
    if let out { try md.write(toFile: out, atomically: true, encoding: .utf8) }
    say("tracking figures: goal \(met ? "met" : "MISSED")")
    return met
}

/// The floor-change scenarios with --auto-map at each hold, on the first 10 seeds.
func floorFigures(_ bench: TrackingFigures) throws -> String {
    let seeds = bench.fewSeeds
    var table = FigureTable(
        intro: "Floors (`--auto-map`, fused, seeds \(FigureTable.list(seeds))): delay = from the true change "
            + "(the passage's middle) to the first report of the new floor that held ≥ 5 s; a change away = a reported map change "
            + "more than \(Int(TrackingFigures.awayS)) s from every true one.",
        columns: ["scenario", "`--hold`", "floor hit (%)", "delay per change (s)", "map changes reported", "changes away from stairs/lift"])
    for (scenario, holds) in [("scenarioJ2J3", [1, 2, 3]), ("scenarioJ3J1", [1, 3])] {
        for hold in holds {
            let results = try bench.runs(scenario, seeds: seeds, extra: ["--auto-map", "--hold", String(hold)])
            let changes = results.first?.delaysS.count ?? 0
            let delays = (0..<changes).map { i -> String in
                let d = results.compactMap { $0.delaysS.count > i ? $0.delaysS[i] : nil }
                let never = results.count - d.count
                return (d.isEmpty ? "never" : String(format: "%.0f to %.0f", d.min()!, d.max()!)) + (never > 0 ? " (never in \(never))" : "")
            }
            let counts = Dictionary(grouping: results.map(\.mapChanges), by: { $0 }).sorted { $0.key < $1.key }
                .map { "\($0.key) in \($0.value.count)" }
            let away = results.map(\.changesAway).reduce(0, +)
            table.row([scenario, String(hold), spread(results.map(\.floorHit), scale: 100, format: "%.1f"), delays.joined(separator: "; "),
                       counts.joined(separator: ", "), "\(away) in \(results.count) runs"])
        }
    }
    return "\n" + table.markdown
}

/// Walks 3 m inside each floor's route, with the walker's measured distance from the surveyed path.
func offRouteFigures(_ bench: TrackingFigures) throws -> String {
    let seeds = bench.fewSeeds
    var table = FigureTable(
        intro: "Off the surveyed route (`--off-route 3`, seeds \(FigureTable.list(seeds))): the walker's "
            + "measured distance from the surveyed path, median over the walk (10th–90th percentile across runs), and the same "
            + "columns as above.",
        columns: ["map", "distance from the survey (m)", "method", "median error (m)", "p90 error (m)", "within the stated accuracy (%)"])
    for map in TrackingFigures.maps {
        let route = try TrackingFigures.route("scenario\(map)1")
        for method in TrackingFigures.methods {
            let results = try bench.runs("scenario\(map)1", seeds: seeds, extra: ["--method", method, "--off-route", "3"], route: route)
            table.row([map, spread(results.compactMap(\.offPathM), format: "%.1f"), method] + TrackRun.errorCells(results))
        }
    }
    return "\n" + table.markdown
}

/// A markdown table of bench figures: a paragraph saying how they were made,
/// the column names, and each row said on stdout as soon as it is measured.
struct FigureTable {
    private(set) var markdown: String

    init(intro: String, columns: [String]) {
        markdown = intro + "\n\n" + Self.line(columns) + Self.line(columns.map { _ in "---" })
    }

    mutating func row(_ cells: [String]) {
        let line = Self.line(cells)
        say(line)
        markdown += line
    }

    static func line(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |\n" }
    static func list(_ seeds: [UInt64]) -> String { seeds.map(String.init).joined(separator: ", ") }
}

extension TrackRun {
    /// Median error, p90 error and within-accuracy across runs, as the tables print them.
    static func errorCells(_ runs: [TrackRun]) -> [String] {
        [spread(runs.map(\.medianM)), spread(runs.map(\.p90M)), spread(runs.map(\.within), scale: 100, format: "%.0f")]
    }
}

extension TrackingFigures {
    /// The seeds the floor and off-route tables use: the first 10.
    var fewSeeds: [UInt64] { Array(seeds.prefix(10)) }

    /// `scenario` tracked on every seed with `extra` options, two at a time, in the seeds' order.
    func runs(_ scenario: String, seeds: [UInt64], extra: [String], route: [MapPoint]? = nil) throws -> [TrackRun] {
        try Self.parallel(seeds.map { seed in { try track(scenario, seed: seed, extra: extra, route: route) } })
    }
}

/// A line on stdout now (print's buffer would hold the rows until the end when stdout is a file).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
}
