import Foundation

// The public UJI long-term dataset (issue 29) through the real binary, as a
// user runs it, whole process: wall time, CPU (user + system, all threads)
// and peak RSS, median of 3 runs each.
//
// 1. `fprint import` of all 15 months (63,504 fingerprints × 620 columns,
//    155 MB of CSV) into a fresh database: target < 15 s, < 300 MB.
// 2. `fprint eval` with the paper's protocol over the 15 months, knn9 alone
//    (target < 3 s), then knn9, knn1 and gk4k12 (issue 63: whole process
//    ≤ 1.5× its own evaluating time, which eval prints), then with every
//    prediction written as CSV (no target: the reproduction's own cost).
// 3. The sweep `--method knn1..15,wknn1..15,gk2..8k12` (37 methods) in one
//    process against 37 single-method processes, alternated: ≥ 10× faster.
//
// The archive is extracted into the bench's folder first (not timed).

func datasetBench(fprint: String, dir: String, datasets: String) throws {
    let archive = datasets + "/uji-lib-longterm-m01-15.tar.xz"
    guard FileManager.default.fileExists(atPath: archive) else {
        print("datasets: \(archive) not found (--datasets-dir): skipped")
        return
    }
    let tar = Process()
    tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tar.arguments = ["tar", "-xJf", archive, "-C", dir]
    try tar.run()
    tar.waitUntilExit()
    guard tar.terminationStatus == 0 else { throw BenchError("tar -xJf \(archive) failed") }
    let root = dir + "/uji-lib-longterm"
    let env = benchEnvironment(dir)

    var imports: [Measured] = []
    var db = ""
    for round in 0..<3 {
        db = dir + "/uji-\(round).sqlite"
        let r = try runMeasured(fprint, ["import", root, "--db", db], environment: env)
        guard r.status == 0 else { throw BenchError("import failed: \(r.stderr)") }
        imports.append(r)
    }
    report("`fprint import` of the UJI long-term dataset, months 1-15 (63,504 fingerprints × 620 columns)", imports,
           target: "< 15 s, < 300 MB")

    let protocolArgs = ["eval", "--db", db, "--train", "campaign=trn01", "--test", "set=test", "--group-by", "month"]
    func eval(_ methods: String, _ extra: [String] = []) throws -> Measured {
        let r = try runMeasured(fprint, protocolArgs + ["--method", methods] + extra, environment: env, samplePeak: false)
        guard r.status == 0 else { throw BenchError("eval --method \(methods) failed: \(r.stderr)") }
        return r
    }
    var knn: [Measured] = []
    for _ in 0..<3 { knn.append(try eval("knn9")) }
    report("`fprint eval` knn9 over months 1-15 (46,800 test fingerprints)", knn, target: "< 3 s")

    // The whole process against the same run's own evaluating time: what reading the radiomap costs beside the work.
    var paper: [Measured] = []
    let paperLoad = oneMinuteLoad()
    for _ in 0..<3 { paper.append(try eval("knn9,knn1,gk4k12")) }
    let core = paper.map(coreSeconds)
    Goals.shared.ratio("UJI months 1-15, `eval` knn9+knn1+gk4k12, whole process vs its own evaluating time",
                       figure: median(paper.map(\.seconds)),
                       "\(secondsLine(paper.map(\.seconds))), CPU \(String(format: "%.2f s", median(paper.map(\.cpuSeconds))))",
                       reference: median(core), "evaluating (printed by eval) \(secondsLine(core))",
                       goal: .slowerAtMost(1.5), load: max(paperLoad, oneMinuteLoad()))
    report("`fprint eval` knn9, knn1 and gk4k12 over months 1-15 with every prediction as CSV",
           [try eval("knn9,knn1,gk4k12", ["--predictions", dir + "/predictions.csv"])], target: "none")

    try sweepBench(eval: { try eval($0) })
}

/// A parameter sweep in one pass (ranges, sharing the neighbour search and the
/// kernels' walk over the postings) against the same methods one process each.
func sweepBench(eval: (String) throws -> Measured) throws {
    let sweep = "knn1..15,wknn1..15,gk2..8k12"
    let methods = (1...15).map { "knn\($0)" } + (1...15).map { "wknn\($0)" } + (2...8).map { "gk\($0)k12" }
    let (passes, separate, load) = try alternated(3, { _ in try eval(sweep).seconds }, reference: { _ in
        try methods.reduce(0.0) { $0 + (try eval($1)).seconds }
    })
    Goals.shared.ratio("UJI months 1-15, `eval --method \(sweep)` (\(methods.count) methods) in one pass vs one process per method",
                       figure: median(passes), "one pass \(secondsLine(passes))", reference: median(separate),
                       "\(methods.count) separate runs \(secondsLine(separate))", goal: .faster(10), load: load)
}

/// The "evaluated in X s" eval prints: its own time, reading and writing aside.
func coreSeconds(_ run: Measured) -> Double {
    run.stderr.firstMatch(of: /evaluated in ([0-9.]+) s/).flatMap { Double($0.1) } ?? .nan
}

private func report(_ label: String, _ runs: [Measured], target: String) {
    let evaluated = runs.map(coreSeconds).filter { !$0.isNaN }
    let inner = evaluated.isEmpty ? "" : String(format: "; of which evaluating %.2f s", median(evaluated))
    let peak = median(runs.map { Double($0.peakKB) / 1024 })
    print(String(format: "datasets: %@: median %.2f s (CPU %.2f s)%@ (target %@)%@", label, median(runs.map(\.seconds)),
                 median(runs.map(\.cpuSeconds)), peak > 0 ? String(format: ", peak RSS %.0f MiB", peak) : "", target, inner))
}
