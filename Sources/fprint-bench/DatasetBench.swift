import Foundation

// The public UJI long-term dataset (issue 29) through the real binary, as a
// user runs it, whole process: wall time, CPU (user + system, all threads)
// and peak RSS, median of 3 runs each.
//
// 1. `fprint import` of all 15 months (63,504 fingerprints × 620 columns,
//    155 MB of CSV) into a fresh database: target < 15 s, < 300 MB.
// 2. `fprint eval` with the paper's protocol over the 15 months, knn9 alone
//    (target < 3 s, < 300 MB), then knn9, knn1 and gk4k12 with every
//    prediction written as CSV (no target: the reproduction's own cost).
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
    var knn: [Measured] = []
    for _ in 0..<3 {
        let r = try runMeasured(fprint, protocolArgs + ["--method", "knn9"], environment: env)
        guard r.status == 0 else { throw BenchError("eval failed: \(r.stderr)") }
        knn.append(r)
    }
    report("`fprint eval` knn9 over months 1-15 (46,800 test fingerprints)", knn, target: "< 3 s, < 300 MB")

    var all: [Measured] = []
    for _ in 0..<3 {
        let r = try runMeasured(fprint, protocolArgs + ["--method", "knn9,knn1,gk4k12", "--predictions", dir + "/predictions.csv"],
                                environment: env)
        guard r.status == 0 else { throw BenchError("eval failed: \(r.stderr)") }
        all.append(r)
    }
    report("`fprint eval` knn9, knn1 and gk4k12 over months 1-15 with every prediction as CSV", all, target: "none")
}

private func report(_ label: String, _ runs: [Measured], target: String) {
    let evaluated = runs.compactMap { r in r.stderr.firstMatch(of: /evaluated in ([0-9.]+) s/).flatMap { Double($0.1) } }
    let inner = evaluated.isEmpty ? "" : String(format: "; of which evaluating %.2f s", median(evaluated))
    print(String(format: "datasets: %@: median %.2f s (CPU %.2f s), peak RSS %.0f MB (target %@)%@", label,
                 median(runs.map(\.seconds)), median(runs.map(\.cpuSeconds)), median(runs.map { Double($0.peakKB) / 1000 }),
                 target, inner))
}
