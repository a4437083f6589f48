import Foundation

// `fprint list`, `list --json --limit 100` and `status` over the bench's
// 100,000-document store, whole process, median of 7 runs each (a run takes
// tens of milliseconds, so one neighbour's burst moves a single run a lot).
// Goals (issue 63, from issue 33's 30 ms and 20 ms over --version's ~8 ms):
// status ≤ 3.5× and list --json --limit 100 ≤ 2.5× `fprint --version`,
// alternated with it in the same run: the cost of starting the binary at all.

func storeCommandBench(fprint: String, db: String, documents: Int, env: [String: String]) throws {
    func timed(_ arguments: [String]) throws -> Double {
        let r = try runMeasured(fprint, arguments, environment: env, samplePeak: false)
        guard r.status == 0 else { throw BenchError("`fprint \(arguments.joined(separator: " "))` exited \(r.status): \(r.stderr)") }
        return r.seconds
    }
    let table = median(try (0..<7).map { _ in try timed(["list", "--db", db]) })
    print(String(format: "list: `fprint list` over %d documents: median %.1f ms (whole process)", documents, table * 1000))
    // Each command alternated with `fprint --version`: the cost of starting the binary at all.
    for (arguments, name, goal) in [(["list", "--db", db, "--json", "--limit", "100"], "`fprint list --json --limit 100`", 2.5),
                                     (["status", "--db", db], "`fprint status`", 3.5)] {
        let (runs, versions, load) = try alternated(7, { _ in try timed(arguments) }, reference: { _ in try timed(["--version"]) })
        Goals.shared.ratio("\(name) at \(documents) documents vs `fprint --version`", figure: median(runs),
                           "median of 7 \(ms(median(runs)))", reference: median(versions),
                           "`fprint --version` \(ms(median(versions)))", goal: .slowerAtMost(goal), load: load)
    }
}
